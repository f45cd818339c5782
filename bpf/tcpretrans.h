/* SPDX-License-Identifier: GPL-2.0 */
/* tcpretrans-lite: kernel <-> user ABI. */
#ifndef BPFLITE_TCPRETRANS_H
#define BPFLITE_TCPRETRANS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Flows counted at once with -c; what does not fit is counted in loss.map_full. */
#define TCPRETRANS_MAX_FLOWS	10240
#define TCPRETRANS_RINGBUF	(256 * 1024)

#define TCPRETRANS_AF_INET	2
#define TCPRETRANS_AF_INET6	10

/* T column: a segment retransmitted (R), a SYN-ACK retransmitted (S). */
#define TCPRETRANS_KIND_SKB	'R'
#define TCPRETRANS_KIND_SYNACK	'S'

/* One retransmit. Addresses in network order (IPv4: the first 4 bytes). */
struct tcpretrans_event {
	__u64 ts_ns;		/* CLOCK_MONOTONIC */
	__u32 tgid;		/* whatever task was running: mostly a timer */
	__u32 seq;		/* first sequence number of the segment (ISN for S) */
	__u16 family;
	__u16 lport;		/* host order */
	__u16 rport;		/* host order */
	__u8 kind;
	__u8 state;		/* TCP_ESTABLISHED..., as the kernel numbers them */
	__u8 laddr[16];
	__u8 raddr[16];
};

/* -c: retransmits per flow (bcc counts per address and port pair). */
struct tcpretrans_flow {
	__u16 family;
	__u16 lport;
	__u16 rport;
	__u16 pad;
	__u8 laddr[16];
	__u8 raddr[16];
};

#endif
