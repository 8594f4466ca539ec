/* SPDX-License-Identifier: Apache-2.0
 *
 * oci_image.c - --container-image (Pyxis's option, built in): an OCI
 * image unpacked into a bundle as the job's user (oci.h)
 *
 * An OCI layout directory goes straight to `umoci unpack --rootless`;
 * `docker-archive:FILE` is first copied into an OCI layout beside the
 * bundle with `skopeo copy`.  Both run in a child that became the user
 * (child_become_user()), so the image, which the user controls, is only
 * ever read with the user's rights, and the files unpacked are theirs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/noded.h"
#include "noded/oci.h"

/* sh -c texts; $1 the image, $2 the bundle, $3 a scratch OCI layout. */
static const char unpack_layout[] =
    "exec umoci unpack --rootless --image \"$1\" \"$2\"";
static const char unpack_archive[] =
    "skopeo --insecure-policy copy -q \"docker-archive:$1\" "
    "\"oci:$3:latest\" && exec umoci unpack --rootless --image "
    "\"$3:latest\" \"$2\"";

static void __attribute__((noreturn))
unpack_child(const char *script, const char *image, const char *dir,
             const char *user, uid_t uid, gid_t gid, int err)
{
    char *bundle = xasprintf("%s/image", dir);
    char *layout = xasprintf("%s/layout", dir);
    int null = open("/dev/null", O_RDWR);

    child_reset();
    if (child_become_user(user, uid, gid) < 0 || chdir(dir) < 0)
        _exit(126);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0
        || dup2(err, 2) < 0)
        _exit(126);
    child_close_fds();
    setenv("HOME", dir, 1);
    setenv("TMPDIR", dir, 1);
    execl("/bin/sh", "sh", "-c", script, "sh", image, bundle, layout,
          (char *)NULL);
    _exit(127);
}

/* What the child wrote on 'fd' until it closed it, last line kept
 * (at most 'size' - 1 bytes, no newline). */
static void read_reason(int fd, char *buf, size_t size)
{
    size_t n = 0;
    ssize_t r;
    char chunk[512];

    buf[0] = '\0';
    while ((r = read(fd, chunk, sizeof(chunk))) > 0 || (r < 0 && errno == EINTR))
        for (ssize_t i = 0; i < r; i++) {
            if (chunk[i] == '\n') {
                if (n)
                    buf[n] = '\0', n = 0;
                continue;
            }
            if (n + 1 < size)
                buf[n++] = chunk[i], buf[n] = '\0';
        }
}

int oci_image_unpack(const char *image, const char *cwd, const char *dir,
                     const char *user, uid_t uid, gid_t gid,
                     drv_error_t *error)
{
    bool archive = !strncmp(image, "docker-archive:", 15);
    const char *path = archive ? image + 15 : image;
    char *abs = path[0] == '/' ? xstrdup(path)
                               : xasprintf("%s/%s", cwd, path);
    char reason[512];
    int fds[2], status;
    pid_t pid;

    if (!*path || pipe2(fds, O_CLOEXEC) < 0) {
        free(abs);
        return errprintf(error, "--container-image=%s: %s", image,
                         *path ? strerror(errno) : "no path");
    }
    if ((pid = fork()) == 0)
        unpack_child(archive ? unpack_archive : unpack_layout, abs, dir,
                     user, uid, gid, fds[1]);
    close(fds[1]);
    free(abs);
    if (pid < 0) {
        close(fds[0]);
        return errprintf(error, "fork: %s", strerror(errno));
    }
    read_reason(fds[0], reason, sizeof(reason));
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    return errprintf(error, "--container-image=%s: cannot unpack: %s", image,
                     reason[0] ? reason : "umoci/skopeo failed");
}
