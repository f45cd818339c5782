// SPDX-License-Identifier: GPL-2.0
/*
 * flamegraph-lite's script, embedded in every SVG at build time: hover
 * details, click to zoom (the clicked frame fills the width, its ancestors
 * stay full width and faded, the rest is hidden), search by regular
 * expression with highlighting and the matched share, Ctrl-F or "/" to
 * search, Escape to reset. It never fetches anything. The SVG defines
 * `fg` (geometry) before it.
 */
/* global fg */
"use strict";
var nodes = [], details, matched, unzoombtn, searchbtn, searching = null, zoomed = null;
function init(evt) {
	var gs = document.getElementById("frames").children, stack = [], i, f, g;
	details = document.getElementById("details").firstChild;
	matched = document.getElementById("matched").firstChild;
	unzoombtn = document.getElementById("unzoom");
	searchbtn = document.getElementById("search");
	for (i = 0; i < gs.length; i++) {
		g = gs[i];
		f = { i: i, g: g, r: g.children[1], t: g.children[2] || null, last: i };
		var title = g.children[0].textContent;
		f.title = title;
		f.name = title.substring(0, title.lastIndexOf(" ("));
		f.x0 = parseFloat(f.r.getAttribute("x"));
		f.w0 = parseFloat(f.r.getAttribute("width"));
		f.fill = f.r.getAttribute("fill");
		f.d = Math.round(Math.abs(parseFloat(f.r.getAttribute("y")) - fg.y0) / fg.fh);
		f.parent = f.d > 0 ? stack[f.d - 1] : null;
		stack[f.d] = f;
		g.fgIndex = i;
		nodes.push(f);
	}
	for (i = nodes.length - 1; i > 0; i--) {
		f = nodes[i];
		if (f.parent && f.last > f.parent.last)
			f.parent.last = f.last;
	}
	var fr = document.getElementById("frames");
	fr.addEventListener("click", function (e) {
		var f = frameOf(e);
		if (f)
			zoom(f);
	});
	fr.addEventListener("mouseover", function (e) {
		var f = frameOf(e);
		if (f)
			details.nodeValue = "Function: " + f.title;
	});
	fr.addEventListener("mouseout", function () { details.nodeValue = " "; });
	unzoombtn.addEventListener("click", unzoom);
	searchbtn.addEventListener("click", function () {
		if (searching)
			resetSearch();
		else
			searchPrompt();
	});
	document.addEventListener("keydown", function (e) {
		if ((e.ctrlKey && e.key === "f") || e.key === "/" || e.key === "F3") {
			e.preventDefault();
			searchPrompt();
		} else if (e.key === "Escape") {
			resetSearch();
			unzoom();
		}
	});
}
function frameOf(e) {
	for (var n = e.target; n && n.fgIndex === undefined; n = n.parentNode)
		;
	return n ? nodes[n.fgIndex] : null;
}
function fit(name, w) {
	var max = Math.floor((w - 6) / (fg.fs * fg.fw));
	if (max < 3)
		return "";
	var chars = Array.from(name);
	return chars.length <= max ? name : chars.slice(0, max - 2).join("") + "..";
}
function place(f, x, w) {
	var label = fit(f.name, w);
	f.g.style.display = "";
	f.r.setAttribute("x", x.toFixed(2));
	f.r.setAttribute("width", w.toFixed(2));
	if (!f.t && label) {	/* narrow frames come without a label */
		f.t = document.createElementNS("http://www.w3.org/2000/svg", "text");
		f.t.setAttribute("y", (parseFloat(f.r.getAttribute("y")) + fg.fh - 4.5).toFixed(0));
		f.g.appendChild(f.t);
	}
	if (f.t) {
		f.t.setAttribute("x", (x + 3).toFixed(2));
		f.t.textContent = label;
	}
}
function zoom(z) {
	var full = fg.W - 2 * fg.xpad, scale = full / z.w0;
	for (var i = 0; i < nodes.length; i++) {
		var f = nodes[i];
		if (i >= z.i && i <= z.last) {
			place(f, fg.xpad + (f.x0 - z.x0) * scale, f.w0 * scale);
			f.g.classList.remove("parent");
		} else if (i < z.i && f.last >= z.i) {
			place(f, fg.xpad, full);
			f.g.classList.add("parent");
		} else {
			f.g.style.display = "none";
		}
	}
	zoomed = z;
	unzoombtn.classList.toggle("hide", z.i === 0);
}
function unzoom() {
	if (!zoomed)
		return;
	for (var i = 0; i < nodes.length; i++) {
		place(nodes[i], nodes[i].x0, nodes[i].w0);
		nodes[i].g.classList.remove("parent");
	}
	zoomed = null;
	unzoombtn.classList.add("hide");
}
function searchPrompt() {
	var term = prompt("Search for (a regular expression):", searching || "");
	if (term)
		search(term);
}
function search(term) {
	var re, i, f, sum = 0, after = -1;
	try {
		re = new RegExp(term);
	} catch (err) {
		matched.nodeValue = "Bad expression: " + err.message;
		return 0;
	}
	for (i = 0; i < nodes.length; i++) {
		f = nodes[i];
		if (re.test(f.name)) {
			f.r.setAttribute("fill", "rgb(230,0,230)");
			if (i > after) {	/* count a match inside a match once */
				sum += f.w0;
				after = f.last;
			}
		} else {
			f.r.setAttribute("fill", f.fill);
		}
	}
	searching = term;
	searchbtn.firstChild.nodeValue = "Reset Search";
	var pct = nodes.length ? 100 * sum / nodes[0].w0 : 0;
	matched.nodeValue = "Matched: " + pct.toFixed(2) + "%";
	return pct;
}
function resetSearch() {
	for (var i = 0; i < nodes.length; i++)
		nodes[i].r.setAttribute("fill", nodes[i].fill);
	searching = null;
	searchbtn.firstChild.nodeValue = "Search";
	matched.nodeValue = " ";
}
