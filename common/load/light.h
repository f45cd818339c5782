/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The light loader: the kernel applies the CO-RE relocations (Linux 5.17
 * and later), so the tool never reads the kernel's 5.5 MB BTF in user
 * space. The loader program is the one `bpftool gen skeleton -L` writes
 * into a light skeleton, generated here at run time from the tool's own
 * libbpf skeleton (a second, private open of the same embedded object)
 * once the tool has set its rodata, map sizes and autoload choices, so
 * every setting a tool makes before load reaches the kernel unchanged.
 * On success the tool's skeleton gets the maps' fds (bpf_map__fd() works
 * as after a libbpf load) and its rodata/bss pointers map the kernel's
 * arrays; programs are attached here. On a failure before the maps are
 * taken over nothing of it is left and the caller loads the libbpf way;
 * on one while they are (LIGHT_FINAL) the object is neither loader's.
 */
#ifndef BPFLITE_LIGHT_H
#define BPFLITE_LIGHT_H

#include <errno.h>
#include <stdbool.h>
#include <bpf/libbpf.h>

/*
 * light__load_attach()'s error when it could take over only part of the
 * object's maps (short of fds): printed, and final, since the object is
 * half the kernel loader's; the tool exits.
 */
#define LIGHT_FINAL (-ENOTRECOVERABLE)

/*
 * Load and attach skeleton s through the kernel's CO-RE, every _btf/_raw
 * pair on raw_tp when raw, else on tp_btf; then(arg) (may be NULL) once
 * the maps are the object's, before any program is attached. 0, LIGHT_FINAL,
 * or -errno (nothing printed but under -v; the object is as it was, but for
 * maps it has taken over when then() or the attach failed).
 */
int light__load_attach(struct bpf_object_skeleton *s, bool raw, int (*then)(void *arg),
		       void *arg);
/* Whether obj was loaded by the light loader. */
bool light__loaded(const struct bpf_object *obj);
/* Detach what the light loader attached of obj (the programs stay loaded). */
void light__detach(const struct bpf_object *obj);
/* A program's fd, whichever loader loaded it; -1 when not loaded. */
int light__prog_fd(const struct bpf_program *prog);

#endif
