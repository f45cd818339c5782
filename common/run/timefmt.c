// SPDX-License-Identifier: GPL-2.0
#include <time.h>
#include <sys/time.h>
#include "run/timefmt.h"

const char *timefmt__hms(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
	return buf;
}

double timefmt__epoch(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

unsigned long long timefmt__mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

double timefmt__mono_to_epoch(void)
{
	return timefmt__epoch() - timefmt__mono_ns() / 1e9;
}
