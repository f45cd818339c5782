// SPDX-License-Identifier: GPL-2.0
/*
 * tcpretrans-lite: TCP retransmits (tcp:tcp_retransmit_skb) and SYN-ACK
 * retransmits (tcp:tcp_retransmit_synack). Addresses, ports and state
 * are read from the socket with CO-RE, never from the tracepoint's event
 * struct, whose layout changed across kernels.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "bpf/tp.bpf.h"
#include <bpf/bpf_endian.h>
#include "tcpretrans.h"
#include "bpf/core_fixes.bpf.h"
#include "bpf/loss.bpf.h"

const volatile __u16 cfg_family = 0;	/* -4/-6: TCPRETRANS_AF_INET(6); 0: both */
const volatile bool cfg_count = false;	/* -c: count per flow, no events */

/* Attempts the kernel reports as failed (nothing sent): not shown. */
__u64 failed_attempts = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TCPRETRANS_RINGBUF);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TCPRETRANS_MAX_FLOWS);
	__type(key, struct tcpretrans_flow);
	__type(value, __u64);
} counts SEC(".maps");

/* Address and ports of sk (a full socket or a request socket: both start with sock_common). */
static __always_inline bool read_flow(const struct sock *sk, struct tcpretrans_flow *f)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);

	if (family != TCPRETRANS_AF_INET && family != TCPRETRANS_AF_INET6)
		return false;
	if (cfg_family && family != cfg_family)
		return false;
	f->family = family;
	f->lport = BPF_CORE_READ(sk, __sk_common.skc_num);
	f->rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	if (family == TCPRETRANS_AF_INET) {
		bpf_core_read(f->laddr, 4, &sk->__sk_common.skc_rcv_saddr);
		bpf_core_read(f->raddr, 4, &sk->__sk_common.skc_daddr);
	} else {
		bpf_core_read(f->laddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		bpf_core_read(f->raddr, 16, &sk->__sk_common.skc_v6_daddr);
	}
	return true;
}

static __always_inline int record(const struct sock *sk, __u8 kind, __u32 seq)
{
	struct tcpretrans_flow f = {};
	struct tcpretrans_event *e;
	__u64 one = 1, *n;

	if (!read_flow(sk, &f))
		return 0;
	if (cfg_count) {
		n = bpf_map_lookup_elem(&counts, &f);
		if (n) {
			__sync_fetch_and_add(n, 1);
		} else if (bpf_map_update_elem(&counts, &f, &one, BPF_NOEXIST)) {
			n = bpf_map_lookup_elem(&counts, &f);	/* another CPU added it */
			if (n)
				__sync_fetch_and_add(n, 1);
			else
				loss_inc(map_full);
		}
		return 0;
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		loss_inc(events);
		return 0;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->tgid = bpf_get_current_pid_tgid() >> 32;
	e->seq = seq;
	e->family = f.family;
	e->lport = f.lport;
	e->rport = f.rport;
	e->kind = kind;
	e->state = BPF_CORE_READ(sk, __sk_common.skc_state);
	__builtin_memcpy(e->laddr, f.laddr, sizeof(e->laddr));
	__builtin_memcpy(e->raddr, f.raddr, sizeof(e->raddr));
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static __always_inline int handle_retransmit_skb(unsigned long long *ctx)
{
	const struct sock *sk = (void *)ctx[0];
	const struct sk_buff *skb = (void *)ctx[1];
	__u32 seq = 0;

	if (tcp_retransmit_skb_err(ctx)) {
		__sync_fetch_and_add(&failed_attempts, 1);
		return 0;
	}
	/* TCP_SKB_CB(skb)->seq: struct tcp_skb_cb starts skb->cb with seq */
	bpf_probe_read_kernel(&seq, sizeof(seq), __builtin_preserve_access_index(&skb->cb));
	return record(sk, TCPRETRANS_KIND_SKB, seq);
}

static __always_inline int handle_retransmit_synack(const struct request_sock *req)
{
	const struct tcp_request_sock *treq = (const void *)req;

	/* a request socket: its sock_common holds the addresses, ports and NEW_SYN_RECV */
	return record((const struct sock *)req, TCPRETRANS_KIND_SYNACK,
		      BPF_CORE_READ(treq, snt_isn));
}

/* No typed arguments: tcp_retransmit_skb has 2 or 3 arguments by kernel. */
TP_PROG(tcp_retransmit_skb, tcp_retransmit_skb)
{
	return handle_retransmit_skb(ctx);
}

TP_PROG(tcp_retransmit_synack, tcp_retransmit_synack, const struct sock *sk, const struct request_sock *req)
{
	return handle_retransmit_synack(req);
}

char LICENSE[] SEC("license") = "GPL";
