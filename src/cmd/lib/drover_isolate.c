/* SPDX-License-Identifier: Apache-2.0
 *
 * drover_isolate.c - controllers in their own network namespaces
 * (drover_isolate.h)
 *
 * The namespaces, the bridge and the veth pairs are made with iproute2's
 * `ip` (run directly, no shell); a controller's child joins its namespace
 * with setns(2) before it execs.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/lib/drover_cluster.h"
#include "cmd/lib/drover_isolate.h"
#include "common/xalloc.h"

#define NETNS_DIR "/run/netns"
#define SYS_NET "/sys/class/net"
#define MAX_IP_ARGS 16

/* Six hex digits of the directory's path (FNV-1a). */
static void dir_tag(const char *dir, char tag[7])
{
    uint32_t h = 2166136261u;

    for (const unsigned char *p = (const unsigned char *)dir; *p; p++)
        h = (h ^ *p) * 16777619u;
    snprintf(tag, 7, "%06x", (unsigned)(h & 0xffffff));
}

static bool subnet_used(int octet)
{
    struct ifaddrs *ifs, *i;
    bool used = false;

    if (getifaddrs(&ifs) < 0)
        return false;
    for (i = ifs; i && !used; i = i->ifa_next) {
        uint32_t a;
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        a = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
        used = (a >> 8) == ((10u << 16) | (77u << 8) | (unsigned)octet);
    }
    freeifaddrs(ifs);
    return used;
}

int drover_isolate_pick(const char *dir, drv_error_t *error)
{
    char tag[7];
    int first;

    dir_tag(dir, tag);
    first = (int)(strtoul(tag, NULL, 16) % 254);
    for (int k = 0; k < 254; k++) {
        int octet = (first + k) % 254 + 1;
        if (!subnet_used(octet))
            return octet;
    }
    return errprintf(error, "--isolate: every subnet 10.77.1-254.0/24 is "
                     "in use on this host");
}

int drover_isolate_octet(const char *dir, drv_error_t *error)
{
    char *path = drover_path(dir, DROVER_ISOLATE_REL);
    FILE *fp = fopen(path, "re");
    int octet = 0, rc;

    if (!fp) {
        free(path);
        return 0;
    }
    rc = fscanf(fp, "10.77.%d.0/24", &octet);
    fclose(fp);
    if (rc != 1 || octet < 1 || octet > 254) {
        errprintf(error, "%s: expected 10.77.X.0/24 with X in 1-254", path);
        octet = -1;
    }
    free(path);
    return octet;
}

char *drover_isolate_netns(const char *dir, const char *ctl)
{
    char tag[7];

    dir_tag(dir, tag);
    return xasprintf("drover-%s-%s", tag, ctl);
}

static bool exists(const char *dir, const char *name)
{
    char *path = xasprintf("%s/%s", dir, name);
    bool ok = access(path, F_OK) == 0;

    free(path);
    return ok;
}

/* Run `ip ARGS...` (NULL-terminated); on failure 'error' holds the
 * command and what it wrote to stderr. */
static int run_ip(drv_error_t *error, ...)
{
    char *argv[MAX_IP_ARGS + 2] = {"ip"}, msg[512] = "", cmd[512] = "ip";
    int p[2], status, argc = 1;
    ssize_t n, got = 0;
    va_list ap;
    pid_t pid;

    va_start(ap, error);
    while (argc <= MAX_IP_ARGS && (argv[argc] = va_arg(ap, char *)))
        argc++;
    va_end(ap);
    argv[argc] = NULL;
    for (int i = 1; i < argc; i++)
        snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " %s",
                 argv[i]);
    if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0)
        return errprintf(error, "%s: %s", cmd, strerror(errno));
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(p[1], 2);
        execvp("ip", argv);
        dprintf(2, "cannot run ip: %s", strerror(errno));
        _exit(127);
    }
    close(p[1]);
    while ((n = read(p[0], msg + got, sizeof(msg) - 1 - (size_t)got)) > 0
           || (n < 0 && errno == EINTR))
        got += n > 0 ? n : 0;
    close(p[0]);
    msg[got] = '\0';
    msg[strcspn(msg, "\n")] = '\0';
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)
        || WEXITSTATUS(status))
        return errprintf(error, "--isolate: `%s` failed: %s", cmd,
                         msg[0] ? msg : "no message");
    return 0;
}

static int bridge_up(const char *br, int octet, drv_error_t *error)
{
    char addr[32];

    if (exists(SYS_NET, br))
        return 0;
    snprintf(addr, sizeof(addr), "10.77.%d.1/24", octet);
    if (run_ip(error, "link", "add", br, "type", "bridge", NULL) < 0
        || run_ip(error, "addr", "add", addr, "dev", br, NULL) < 0
        || run_ip(error, "link", "set", br, "up", NULL) < 0)
        return -1;
    return 0;
}

/* Controller 'i' (0-based) named 'ctl': its namespace and veth pair. */
static int ctl_up(const char *dir, const char *br, int octet, size_t i,
                  const char *ctl, drv_error_t *error)
{
    char *ns = drover_isolate_netns(dir, ctl);
    char tag[7], host[32], peer[32], addr[32]; /* names fit IFNAMSIZ: N <= 7 */
    int rc = 0;

    dir_tag(dir, tag);
    snprintf(host, sizeof(host), "drv%sc%zu", tag, i + 1);
    snprintf(peer, sizeof(peer), "drv%sp%zu", tag, i + 1);
    snprintf(addr, sizeof(addr), "10.77.%d.%zu/24", octet, i + 2);
    if (!exists(NETNS_DIR, ns)
        && (run_ip(error, "netns", "add", ns, NULL) < 0
            || run_ip(error, "-n", ns, "link", "set", "lo", "up", NULL) < 0))
        rc = -1;
    if (!rc && !exists(SYS_NET, host)
        && (run_ip(error, "link", "add", host, "type", "veth", "peer", "name",
                   peer, "netns", ns, NULL) < 0
            || run_ip(error, "link", "set", host, "master", br, NULL) < 0
            || run_ip(error, "link", "set", host, "up", NULL) < 0
            || run_ip(error, "-n", ns, "addr", "add", addr, "dev", peer,
                      NULL) < 0
            || run_ip(error, "-n", ns, "link", "set", peer, "up", NULL) < 0))
        rc = -1;
    free(ns);
    return rc;
}

int drover_isolate_up(const char *dir, int octet, char *const *ctls,
                      size_t n, drv_error_t *error)
{
    char tag[7], br[16];

    dir_tag(dir, tag);
    snprintf(br, sizeof(br), "drvbr-%s", tag);
    if (bridge_up(br, octet, error) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (ctl_up(dir, br, octet, i, ctls[i], error) < 0)
            return -1;
    return 0;
}

/* Remove each entry of 'dir' that starts with 'prefix' with `ip WHAT del
 * NAME` ("netns" or "link"). */
static int remove_matching(const char *dir, const char *prefix,
                           const char *what)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int removed = 0;

    while (d && (e = readdir(d))) {
        drv_error_t error = {{0}};
        if (strncmp(e->d_name, prefix, strlen(prefix)))
            continue;
        if (run_ip(&error, what, "del", e->d_name, NULL) == 0)
            removed++;
    }
    if (d)
        closedir(d);
    return removed;
}

int drover_isolate_down(const char *dir)
{
    char tag[7], prefix[32];
    int removed;

    dir_tag(dir, tag);
    snprintf(prefix, sizeof(prefix), "drover-%s-", tag);
    removed = remove_matching(NETNS_DIR, prefix, "netns");
    snprintf(prefix, sizeof(prefix), "drv%sc", tag); /* veths left over */
    removed += remove_matching(SYS_NET, prefix, "link");
    snprintf(prefix, sizeof(prefix), "drvbr-%s", tag);
    removed += remove_matching(SYS_NET, prefix, "link");
    return removed;
}

int drover_isolate_enter(const char *netns, const char *hostname)
{
    char *path = xasprintf(NETNS_DIR "/%s", netns);
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;

    free(path);
    if (fd < 0)
        return -1;
    if (setns(fd, CLONE_NEWNET) == 0 && unshare(CLONE_NEWUTS) == 0
        && sethostname(hostname, strlen(hostname)) == 0)
        rc = 0;
    close(fd);
    return rc;
}
