/* SPDX-License-Identifier: Apache-2.0
 *
 * oci.c - a step's tasks inside an OCI bundle (oci.h)
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "common/xalloc.h"
#include "noded/noded.h"
#include "noded/oci.h"
#include "noded/spool.h"

struct oci_step {
    const struct conf_oci *oci;
    char *bundle;     /* absolute */
    char *dir;        /* the step directory */
    char *node, *user;
    uint32_t job_id, step_id;
    uid_t uid;
    gid_t gid;
    char **devices;   /* NULL-terminated */
    char *ro_dir;     /* or NULL */
    char **mounts;    /* --container-mounts: src, dst, mode triples */
    char *workdir;    /* or NULL */
    bool image_unpacked; /* --container-image: <dir>/image (and layout) */
};

/* 'arg' single-quoted for sh onto the end of 'out' (POSIX: ' closes). */
static void quote_into(FILE *out, const char *arg)
{
    fputc('\'', out);
    for (const char *c = arg; *c; c++)
        fputs(*c == '\'' ? "'\\''" : (char[]){*c, 0}, out);
    fputc('\'', out);
}

char *oci_pattern(const char *pattern, const struct oci_step *s, int task_id,
                  const char *bundle, const char *rootfs, char *const *argv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    bool bad = false;

    if (!out)
        return NULL;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') {
            fputc(*p, out);
            continue;
        }
        switch (*++p) {
        case '%': fputc('%', out); break;
        case '@':
            for (size_t i = 0; argv && argv[i]; i++) {
                if (i)
                    fputc(' ', out);
                quote_into(out, argv[i]);
            }
            break;
        case 'b': fputs(bundle ? bundle : "", out); break;
        case 'e': fprintf(out, "%s/environment", bundle ? bundle : ""); break;
        case 'j': fprintf(out, "%u", s->job_id); break;
        case 'm': fputs(s->dir ? s->dir : "", out); break;
        case 'n': fputs(s->node, out); break;
        case 'p': fputs("$$", out); break;
        case 'r': fputs(rootfs ? rootfs : "", out); break;
        case 's': fprintf(out, "%u", s->step_id); break;
        case 't': fprintf(out, "%d", task_id); break;
        case 'u': fputs(s->user, out); break;
        case 'U': fprintf(out, "%u", (unsigned)s->uid); break;
        default: bad = true; p -= !*p; break;
        }
    }
    fclose(out);
    if (bad) {
        free(buf);
        errno = EINVAL;
        return NULL;
    }
    return buf;
}

static char **strv_dup(const char *const *v)
{
    size_t n = 0;
    char **out;

    while (v && v[n])
        n++;
    out = xzalloc(sizeof(*out) * (n + 1));
    for (size_t i = 0; i < n; i++)
        out[i] = xstrdup(v[i]);
    return out;
}

/* The step directory's parent and name: ContainerPath expanded, else
 * <spool>/oci-job%j-%s (Slurm's default name). */
static int step_dir_path(struct oci_step *s, const char *spool,
                         drv_error_t *error)
{
    const char *pat = s->oci->container_path;

    s->dir = pat ? oci_pattern(pat, s, -1, NULL, NULL, NULL)
                 : xasprintf("%s/oci-job%u-%u", spool, s->job_id, s->step_id);
    if (!s->dir)
        return errprintf(error, "%s: ContainerPath=%s: %s", s->oci->path, pat,
                         strerror(errno));
    while (strlen(s->dir) > 1 && s->dir[strlen(s->dir) - 1] == '/')
        s->dir[strlen(s->dir) - 1] = '\0';
    if (s->dir[0] != '/' || !strrchr(s->dir, '/')[1])
        return errprintf(error, "container directory %s: not an absolute "
                                "path", s->dir);
    return 0;
}

static int make_step_dir(struct oci_step *s, drv_error_t *error)
{
    char *slash = strrchr(s->dir, '/');
    char *parent = slash == s->dir ? xstrdup("/")
                                   : strndup(s->dir, (size_t)(slash - s->dir));
    int fd = spool_mkdir_fresh(parent, slash + 1, 0700, error);

    free(parent);
    if (fd < 0)
        return -1;
    if (geteuid() == 0 && fchown(fd, s->uid, s->gid) < 0) {
        close(fd);
        return errprintf(error, "chown %s: %s", s->dir, strerror(errno));
    }
    close(fd);
    return 0;
}

/* --container-mounts "SRC[:DST[:ro|rw]],..." into src, dst, mode
 * triples; NULL with 'error' on a bad entry. */
static char **parse_mounts(const char *spec, const char *cwd,
                           drv_error_t *error)
{
    char *copy = xstrdup(spec), *save = NULL, *tok;
    char **m = xzalloc(sizeof(*m) * (3 * strlen(spec) + 1));
    size_t n = 0;

    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *dst = strchr(tok, ':'), *mode = NULL;

        if (dst) {
            *dst++ = '\0';
            if ((mode = strchr(dst, ':')))
                *mode++ = '\0';
        }
        if (!*tok || (dst && dst[0] != '/')
            || (mode && strcmp(mode, "ro") && strcmp(mode, "rw"))) {
            errprintf(error, "--container-mounts=%s: expected "
                             "SRC[:DST[:ro|rw]] with an absolute DST",
                      spec);
            for (size_t i = 0; i < n; i++)
                free(m[i]);
            free(m);
            free(copy);
            return NULL;
        }
        m[n] = tok[0] == '/' ? xstrdup(tok) : xasprintf("%s/%s", cwd, tok);
        m[n + 1] = xstrdup(dst ? dst : m[n]);
        m[n + 2] = xstrdup(mode ? mode : "rw");
        n += 3;
    }
    free(copy);
    return m;
}

/* What needs no directory: the step's copy of its description. */
static struct oci_step *step_new(const struct oci_step_spec *spec)
{
    struct oci_step *s = xzalloc(sizeof(*s));

    s->oci = spec->oci;
    if (spec->bundle)
        s->bundle = spec->bundle[0] == '/'
                        ? xstrdup(spec->bundle)
                        : xasprintf("%s/%s", spec->cwd, spec->bundle);
    s->node = xstrdup(spec->node);
    s->user = xstrdup(spec->user);
    s->job_id = spec->job_id;
    s->step_id = spec->step_id;
    s->uid = spec->uid;
    s->gid = spec->gid;
    s->devices = strv_dup(spec->devices);
    s->ro_dir = spec->ro_dir ? xstrdup(spec->ro_dir) : NULL;
    s->workdir = spec->workdir ? xstrdup(spec->workdir) : NULL;
    return s;
}

/* Why 'spec' cannot run, or NULL. */
static const char *refused(const struct oci_step_spec *spec)
{
    if (!spec->oci->path)
        return "containers are not configured here (no oci.conf)";
    if (!spec->bundle && !spec->image)
        return "--container-mounts and --container-workdir need "
               "--container or --container-image";
    if (spec->bundle && spec->image)
        return "--container and --container-image are mutually exclusive";
    if (spec->workdir && spec->workdir[0] != '/')
        return "--container-workdir: not an absolute path";
    return NULL;
}

struct oci_step *oci_step_create(const struct oci_step_spec *spec,
                                 drv_error_t *error)
{
    const char *why = refused(spec);
    struct oci_step *s;

    if (why) {
        errprintf(error, "%s: %s", spec->node, why);
        return NULL;
    }
    s = step_new(spec);
    if ((spec->mounts
         && !(s->mounts = parse_mounts(spec->mounts, spec->cwd, error)))
        || step_dir_path(s, spec->spool, error) < 0
        || make_step_dir(s, error) < 0) {
        free(s->dir);
        s->dir = NULL; /* nothing of ours to remove */
        oci_step_destroy(s);
        return NULL;
    }
    if (spec->image) {
        s->image_unpacked = true; /* even in part */
        if (oci_image_unpack(spec->image, spec->cwd, s->dir, s->user, s->uid,
                             s->gid, error) < 0) {
            oci_step_destroy(s);
            return NULL;
        }
        s->bundle = xasprintf("%s/image", s->dir);
    }
    return s;
}

/* The step directory's contents removed as the user first (an unpacked
 * image may be deeper than spool_remove() descends); root removes the
 * rest without following links. */
static void remove_as_user(const struct oci_step *s)
{
    int status;
    pid_t pid = fork();

    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);

        child_reset();
        if (child_become_user(s->user, s->uid, s->gid) < 0 || chdir(s->dir) < 0
            || null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
            _exit(1);
        child_close_fds();
        execl("/bin/rm", "rm", "-rf", "--", "image", "layout", (char *)NULL);
        _exit(127);
    }
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
}

void oci_step_destroy(struct oci_step *s)
{
    if (!s)
        return;
    if (s->dir && s->image_unpacked)
        remove_as_user(s);
    if (s->dir) {
        char *slash = strrchr(s->dir, '/');
        char *parent = strndup(s->dir, (size_t)(slash - s->dir));

        spool_remove(slash == s->dir ? "/" : parent, slash + 1);
        free(parent);
    }
    for (size_t i = 0; s->devices && s->devices[i]; i++)
        free(s->devices[i]);
    free(s->devices);
    free(s->bundle);
    free(s->dir);
    free(s->node);
    free(s->user);
    free(s->ro_dir);
    for (size_t i = 0; s->mounts && s->mounts[i]; i++)
        free(s->mounts[i]);
    free(s->mounts);
    free(s->workdir);
    free(s);
}

/* A task child's fatal error: a line on its stderr, exit 127. */
static void __attribute__((noreturn, format(printf, 1, 2)))
task_fail(const char *fmt, ...)
{
    va_list ap;

    fputs("droverd: container: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    _exit(127);
}

/* Put "NAME=value" 'kv' in 'env' over an entry of the same NAME. */
static void env_merge(json_t *env, const char *kv)
{
    size_t n = strcspn(kv, "="), i;
    json_t *v;

    json_array_foreach(env, i, v) {
        const char *s = json_string_value(v);
        if (s && !strncmp(s, kv, n) && s[n] == '=') {
            json_array_set_new(env, i, json_string(kv));
            return;
        }
    }
    json_array_append_new(env, json_string(kv));
}

static json_t *bind_mount(const char *src, const char *dst,
                          const char *mode)
{
    return json_pack("{s:s s:s s:s s:[s,s,s]}", "destination", dst, "type",
                     "bind", "source", src, "options", "rbind", "nosuid",
                     mode);
}

static bool has_user_ns(json_t *linux_)
{
    json_t *ns;
    size_t i;

    json_array_foreach(json_object_get(linux_, "namespaces"), i, ns) {
        const char *t = json_string_value(json_object_get(ns, "type"));
        if (t && !strcmp(t, "user"))
            return true;
    }
    return false;
}

/* The bundle's config.json rewritten for one task; *rootfs gets the
 * original root.path made absolute (%r). */
static json_t *task_config(const struct oci_step *s, char *const *argv,
                           char *const *envp, char **rootfs)
{
    char *path = xasprintf("%s/config.json", s->bundle);
    json_error_t jerr;
    json_t *c = json_load_file(path, 0, &jerr), *proc, *root, *env, *args,
           *mounts, *lx;
    const char *rp;

    if (!json_is_object(c))
        task_fail("%s: %s", path, jerr.text);
    free(path);
    if (!json_is_object(proc = json_object_get(c, "process")))
        json_object_set_new(c, "process", proc = json_object());
    if (!json_is_object(root = json_object_get(c, "root")))
        json_object_set_new(c, "root", root = json_object());
    rp = json_string_value(json_object_get(root, "path")) ?: "rootfs";
    *rootfs = rp[0] == '/' ? xstrdup(rp) : xasprintf("%s/%s", s->bundle, rp);
    json_object_set_new(root, "path", json_string(*rootfs));
    json_object_set_new(proc, "terminal", json_false());
    json_object_set_new(proc, "user", json_pack("{s:I s:I}", "uid",
                                                (json_int_t)s->uid, "gid",
                                                (json_int_t)s->gid));
    args = json_array();
    for (size_t i = 0; argv[i]; i++)
        json_array_append_new(args, json_string(argv[i]));
    json_object_set_new(proc, "args", args);
    if (!json_is_array(env = json_object_get(proc, "env")))
        json_object_set_new(proc, "env", env = json_array());
    for (size_t i = 0; envp[i]; i++)
        env_merge(env, envp[i]);
    if (!json_is_array(mounts = json_object_get(c, "mounts")))
        json_object_set_new(c, "mounts", mounts = json_array());
    for (size_t i = 0; s->devices[i]; i++)
        json_array_append_new(mounts, bind_mount(s->devices[i],
                                                 s->devices[i], "rw"));
    if (s->ro_dir)
        json_array_append_new(mounts, bind_mount(s->ro_dir, s->ro_dir, "ro"));
    for (size_t i = 0; s->mounts && s->mounts[i]; i += 3)
        json_array_append_new(mounts, bind_mount(s->mounts[i],
                                                 s->mounts[i + 1],
                                                 s->mounts[i + 2]));
    if (s->workdir)
        json_object_set_new(proc, "cwd", json_string(s->workdir));
    /* a rootless runtime maps only its own ids: the user's */
    if ((lx = json_object_get(c, "linux")) && has_user_ns(lx)) {
        json_t *map = json_pack("[{s:I s:I s:i}]", "containerID",
                                (json_int_t)s->uid, "hostID",
                                (json_int_t)s->uid, "size", 1);
        json_object_set_new(lx, "uidMappings", map);
        map = json_pack("[{s:I s:I s:i}]", "containerID", (json_int_t)s->gid,
                        "hostID", (json_int_t)s->gid, "size", 1);
        json_object_set_new(lx, "gidMappings", map);
    }
    return c;
}

static void write_env_file(const char *dir, char *const *envp)
{
    char *path = xasprintf("%s/environment", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);

    if (fd < 0)
        task_fail("%s: %s", path, strerror(errno));
    for (size_t i = 0; envp[i]; i++)
        if (write(fd, envp[i], strlen(envp[i]) + 1) < 0)
            task_fail("%s: %s", path, strerror(errno));
    close(fd);
    free(path);
}

/* The shell text a task runs: the run (or create, start and a poll of
 * the state until the container stopped), then delete. */
static char *task_script(const struct oci_step *s, int task_id,
                         const char *dir, const char *rootfs,
                         char *const *argv)
{
    const struct conf_oci *o = s->oci;
    char *del = oci_pattern(o->runtime_delete, s, task_id, dir, rootfs, argv);
    char *out, *run, *create, *start, *query;

    if (!del)
        task_fail("%s: RunTimeDelete: bad pattern", o->path);
    if (o->runtime_run) {
        if (!(run = oci_pattern(o->runtime_run, s, task_id, dir, rootfs,
                                argv)))
            task_fail("%s: RunTimeRun: bad pattern", o->path);
        out = xasprintf("%s\nrc=$?\n%s >/dev/null 2>&1\nexit $rc\n", run,
                        del);
        free(run);
        free(del);
        return out;
    }
    create = oci_pattern(o->runtime_create, s, task_id, dir, rootfs, argv);
    start = oci_pattern(o->runtime_start, s, task_id, dir, rootfs, argv);
    query = oci_pattern(o->runtime_query, s, task_id, dir, rootfs, argv);
    if (!create || !start || !query)
        task_fail("%s: RunTime*: bad pattern", o->path);
    out = xasprintf("%s || exit 127\n%s || { %s >/dev/null 2>&1; exit 127; }\n"
                    "while %s 2>/dev/null | grep -Eq "
                    "'\"status\": *\"(creating|created|running)\"'; do "
                    "sleep 0.1; done\n%s >/dev/null 2>&1\n",
                    create, start, del, query, del);
    free(create);
    free(start);
    free(query);
    free(del);
    return out;
}

void oci_task_exec(const struct oci_step *s, int task_id, char *const *argv,
                   char *const *envp)
{
    char *dir = xasprintf("%s/task-%d", s->dir, task_id);
    char *path = xasprintf("%s/config.json", dir), *rootfs, *script;
    json_t *c;

    if (mkdir(dir, 0700) < 0)
        task_fail("%s: %s", dir, strerror(errno));
    c = task_config(s, argv, envp, &rootfs);
    if (json_dump_file(c, path, JSON_INDENT(1)) < 0)
        task_fail("%s: cannot write", path);
    json_decref(c);
    if (s->oci->create_env_file)
        write_env_file(dir, envp);
    script = task_script(s, task_id, dir, rootfs, argv);
    environ = (char **)envp;
    execl("/bin/sh", "sh", "-c", script, (char *)NULL);
    task_fail("/bin/sh: %s", strerror(errno));
}

bool oci_spec_from_json(json_t *o, struct oci_step_spec *spec)
{
    spec->bundle = json_string_value(json_object_get(o, "container"));
    spec->image = json_string_value(json_object_get(o, "container_image"));
    spec->mounts = json_string_value(json_object_get(o, "container_mounts"));
    spec->workdir = json_string_value(json_object_get(o,
                                                      "container_workdir"));
    return spec->bundle || spec->image || spec->mounts || spec->workdir;
}
