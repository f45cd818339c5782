// SPDX-License-Identifier: GPL-2.0
/*
 * cxxwl: CPU burnt in C++ functions, whose symbols are mangled, for the
 * symbolizer's demangling: bpflite::run_burner(int) calls
 * bpflite::Burner<int>::spin(unsigned long) until the process has used
 * CPU_MS of CPU time (default 500), after the go signal.
 *   cxxwl [-b CPU_MS] [-g GO_FIFO]
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <unistd.h>

namespace bpflite {

volatile unsigned long long sink;

template <typename T> struct Burner {
	__attribute__((noinline)) void spin(unsigned long iters)
	{
		unsigned long long x = 88172645463325252ULL;

		for (unsigned long i = 0; i < iters; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		sink = sink + x + sizeof(T);
	}
};

static long long cpu_ms()
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) void run_burner(int cpu_ms_wanted)
{
	Burner<int> b;

	while (cpu_ms() < cpu_ms_wanted)
		b.spin(100000);
}

} // namespace bpflite

int main(int argc, char **argv)
{
	int ms = 500, opt;
	char c;

	while ((opt = getopt(argc, argv, "b:g:")) != -1) {
		if (opt == 'b') {
			ms = atoi(optarg);
		} else if (opt == 'g') {
			int fd = open(optarg, O_RDONLY);

			if (fd < 0 || read(fd, &c, 1) < 0) {
				perror(optarg);
				return 1;
			}
			close(fd);
		} else {
			fprintf(stderr, "usage: cxxwl [-b CPU_MS] [-g GO_FIFO]\n");
			return 2;
		}
	}
	bpflite::run_burner(ms);
	return 0;
}
