/* SPDX-License-Identifier: GPL-2.0 */
/* The one version of bpflite: the Makefile passes it from the VERSION file. */
#ifndef BPFLITE_VERSION_H
#define BPFLITE_VERSION_H

#ifndef BPFLITE_VERSION
#define BPFLITE_VERSION "unknown"
#endif

#endif
