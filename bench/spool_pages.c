/*
 * bench/spool_pages.c -- what writing a spool file costs over its own pages against new ones
 * (docs/performance.md, "sendfile"): 128 MiB in 128 KiB pwrites at offset OFF of an unlinked file
 * in DIR, five times after a first fill; MODE "reuse" writes over the pages the file has, "trunc"
 * cuts the file to nothing first (what a spool file sent by sendfile goes through). Prints the
 * wall and CPU time of the cut and of the writes.
 *
 *     cc -O2 -o /tmp/spool_pages bench/spool_pages.c && /tmp/spool_pages reuse|trunc OFF [DIR]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
           (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    size_t total = (size_t)128 << 20, w = (size_t)128 << 10;
    off_t off0 = (off_t)atol(argv[2]);
    char *buf = malloc(w);
    int fd = open(argc > 3 ? argv[3] : "/tmp", O_TMPFILE | O_RDWR, 0600);
    if (buf == NULL || fd < 0)
        return 1;
    memset(buf, 7, w);
    for (int rep = 0; rep < 6; rep++) {
        double c0 = cpu(), t0 = wall();
        if (rep > 0 && strcmp(argv[1], "trunc") == 0 && ftruncate(fd, 0) != 0)
            return 1;
        double c1 = cpu(), t1 = wall();
        for (size_t o = 0; o < total; o += w)
            if (pwrite(fd, buf, w, off0 + (off_t)o) != (ssize_t)w)
                return 1;
        double c2 = cpu(), t2 = wall();
        if (rep > 0)
            printf("%s at %ld: cut %.1f ms (CPU %.1f) | writes %.1f ms (CPU %.1f)\n", argv[1],
                   (long)off0, (t1 - t0) * 1e3, (c1 - c0) * 1e3, (t2 - t1) * 1e3, (c2 - c1) * 1e3);
    }
    return 0;
}
