/* SPDX-License-Identifier: Apache-2.0
 *
 * sacctmgr_dump.c - Slurm's dump file of a cluster, written and read back
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/rpc.h"
#include "cmd/lib/sacctmgr_dump.h"
#include "common/xalloc.h"

static const char header[] =
    "# To edit this file start with a cluster line for the new cluster\n"
    "# Cluster - 'cluster_name':MaxTRESPerJob=node=50\n"
    "# Followed by Accounts you want in this fashion (root is created by default)...\n"
    "# Parent - 'root'\n"
    "# Account - 'cs':MaxTRESPerJob=node=5:MaxJobs=4:FairShare=399:MaxWallDurationPerJob=40:Description='Computer Science':Organization='LC'\n"
    "# Any of the options after a ':' can be left out and they can be in any order.\n"
    "# If you want to add any sub accounts just list the Parent THAT HAS ALREADY\n"
    "# BEEN CREATED before the account line in this fashion...\n"
    "# Parent - 'cs'\n"
    "# Account - 'test':MaxTRESPerJob=node=1:MaxJobs=1:FairShare=1:MaxWallDurationPerJob=1:Description='Test Account':Organization='Test'\n"
    "# To add users to a account add a line like this after a Parent - 'line'\n"
    "# User - 'lipari':MaxTRESPerJob=node=2:MaxJobs=3:FairShare=1:MaxWallDurationPerJob=1\n";

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_int_t jint(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

/* ":Key=value" options of an association (limits set). */
static void assoc_opts(struct fmt_buf *b, const json_t *a)
{
    static const struct {
        const char *key, *name;
        bool text;
    } lim[] = {
        {"grp_tres", "GrpTRES", true},
        {"grp_jobs", "GrpJobs", false},
        {"grp_submit_jobs", "GrpSubmitJobs", false},
        {"max_tres_per_job", "MaxTRESPerJob", true},
        {"max_jobs", "MaxJobs", false},
        {"max_submit_jobs", "MaxSubmitJobs", false},
        {"max_wall_min", "MaxWallDurationPerJob", false},
        {"priority", "Priority", false},
    };
    json_t *q;
    size_t i;

    fmt_buf_printf(b, ":Fairshare=%lld", (long long)jint(a, "shares"));
    for (i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
        if (lim[i].text && jstr(a, lim[i].key)[0])
            fmt_buf_printf(b, ":%s=%s", lim[i].name, jstr(a, lim[i].key));
        else if (!lim[i].text && jint(a, lim[i].key) >= 0)
            fmt_buf_printf(b, ":%s=%lld", lim[i].name,
                           (long long)jint(a, lim[i].key));
    }
    if (jstr(a, "def_qos")[0])
        fmt_buf_printf(b, ":DefaultQOS='%s'", jstr(a, "def_qos"));
    if (json_array_size(json_object_get(a, "qos"))) {
        fmt_buf_puts(b, ":QOS='");
        json_array_foreach(json_object_get(a, "qos"), i, q)
            fmt_buf_printf(b, "%s%s", i ? "," : "", json_string_value(q));
        fmt_buf_puts(b, "'");
    }
}

static const json_t *find_named(json_t *list, const char *key,
                                const char *name)
{
    json_t *v;
    size_t i;

    json_array_foreach(list, i, v) {
        if (!strcmp(jstr(v, "name"), name))
            return v;
    }
    (void)key;
    return NULL;
}

/* The children of account 'acct': users, then sub-accounts. */
static void dump_children(struct fmt_buf *b, json_t *list, json_t *assocs,
                          const char *acct)
{
    bool titled = false;
    json_t *a;
    size_t i;

    for (int users = 1; users >= 0; users--) {
        json_array_foreach(assocs, i, a) {
            bool is_user = jstr(a, "user")[0];
            if (is_user != (bool)users
                || strcmp(users ? jstr(a, "account")
                                : jstr(a, "parent_account"), acct))
                continue;
            if (!titled)
                fmt_buf_printf(b, "Parent - '%s'\n", acct);
            titled = true;
            if (users) {
                const json_t *u = find_named(json_object_get(list, "users"),
                                             "name", jstr(a, "user"));
                fmt_buf_printf(b, "User - '%s'", jstr(a, "user"));
                if (u && jstr(u, "default_account")[0])
                    fmt_buf_printf(b, ":DefaultAccount='%s'",
                                   jstr(u, "default_account"));
                if (u && strcmp(jstr(u, "admin_level"), "None"))
                    fmt_buf_printf(b, ":AdminLevel='%s'",
                                   jstr(u, "admin_level"));
            } else {
                const json_t *ac = find_named(json_object_get(list,
                                                              "accounts"),
                                              "name", jstr(a, "account"));
                fmt_buf_printf(b, "Account - '%s'", jstr(a, "account"));
                if (ac)
                    fmt_buf_printf(b, ":Description='%s':Organization='%s'",
                                   jstr(ac, "description"),
                                   jstr(ac, "organization"));
            }
            assoc_opts(b, a);
            fmt_buf_puts(b, "\n");
        }
    }
    json_array_foreach(assocs, i, a) {
        if (!jstr(a, "user")[0] && !strcmp(jstr(a, "parent_account"), acct))
            dump_children(b, list, assocs, jstr(a, "account"));
    }
}

int smgr_dump_text(struct fmt_buf *out, json_t *list, const char *cluster)
{
    json_t *assocs = json_array(), *a, *root = NULL;
    size_t i;

    json_array_foreach(json_object_get(list, "assocs"), i, a) {
        if (strcasecmp(jstr(a, "cluster"), cluster))
            continue;
        json_array_append(assocs, a);
        if (!jstr(a, "user")[0] && !jstr(a, "parent_account")[0])
            root = a;
    }
    if (!root) {
        json_decref(assocs);
        return -1;
    }
    fmt_buf_puts(out, header);
    fmt_buf_printf(out, "Cluster - '%s'", jstr(root, "cluster"));
    assoc_opts(out, root);
    fmt_buf_puts(out, "\n");
    dump_children(out, list, assocs, "root");
    json_decref(assocs);
    return 0;
}

/* Load ------------------------------------------------------------------- */

/* "Kind - 'name':K=V:K='v:w'" into kind, name and a "set" object. */
static int parse_line(const char *line, char *kind, size_t ksize,
                      char **name, json_t **set)
{
    const char *p = strstr(line, " - ");
    const char *q;

    if (!p || (size_t)(p - line) >= ksize)
        return -1;
    snprintf(kind, ksize, "%.*s", (int)(p - line), line);
    p += 3;
    if (*p != '\'' || !(q = strchr(p + 1, '\'')))
        return -1;
    *name = xasprintf("%.*s", (int)(q - p - 1), p + 1);
    *set = json_object();
    for (p = q + 1; *p == ':';) {
        const char *eq = strchr(p, '='), *end;
        char *key, *val;
        if (!eq)
            break;
        key = xasprintf("%.*s", (int)(eq - p - 1), p + 1);
        for (char *c = key; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        if (eq[1] == '\'' && (end = strchr(eq + 2, '\''))) {
            val = xasprintf("%.*s", (int)(end - eq - 2), eq + 2);
            end++;
        } else {
            end = eq + 1 + strcspn(eq + 1, ":\n");
            val = xasprintf("%.*s", (int)(end - eq - 1), eq + 1);
        }
        json_object_set_new(*set, key, json_string(val));
        free(key);
        free(val);
        p = end;
    }
    return 0;
}

json_t *smgr_load_plan(const char *text, int *bad_line)
{
    json_t *plan = json_array();
    char *parent = xstrdup("root"), *cluster = NULL;
    int lineno = 0;

    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        char *line = xasprintf("%.*s", (int)len, p), kind[32], *name = NULL;
        json_t *set = NULL;
        lineno++;
        p += len + (p[len] == '\n');
        if (!line[0] || line[0] == '#') {
            free(line);
            continue;
        }
        if (parse_line(line, kind, sizeof(kind), &name, &set) < 0) {
            *bad_line = lineno;
            free(line);
            json_decref(plan);
            free(parent);
            free(cluster);
            return NULL;
        }
        if (!strcasecmp(kind, "Parent")) {
            free(parent);
            parent = xstrdup(name);
        } else {
            const char *ent = !strcasecmp(kind, "Cluster")   ? "cluster"
                              : !strcasecmp(kind, "Account") ? "account"
                                                             : "user";
            if (!strcasecmp(kind, "Cluster")) {
                free(cluster);
                cluster = xstrdup(name);
            } else if (cluster) {
                json_object_set_new(set, "cluster", json_string(cluster));
                json_object_set_new(set, !strcmp(ent, "user") ? "account"
                                                              : "parent",
                                    json_string(parent));
            }
            json_array_append_new(plan, json_pack("{s:s,s:s,s:[s],s:{},s:O}",
                                                  "op", "add", "entity", ent,
                                                  "names", name, "where",
                                                  "set", set));
        }
        json_decref(set);
        free(name);
        free(line);
    }
    free(parent);
    free(cluster);
    return plan;
}

static const char *file_arg(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strncasecmp(argv[i], "file=", 5))
            return argv[i] + 5;
    }
    return NULL;
}

int smgr_dump(const char *prog, int argc, char **argv)
{
    const char *file = file_arg(argc, argv), *cluster = NULL;
    drv_error_t error = {{0}};
    struct fmt_buf b = {0};
    json_t *list = NULL;
    FILE *f;
    int rc = 1;

    for (int i = 0; i < argc; i++) {
        if (strncasecmp(argv[i], "file=", 5))
            cluster = !strncasecmp(argv[i], "cluster=", 8) ? argv[i] + 8
                                                            : argv[i];
    }
    if (!cluster) {
        fprintf(stderr, " Need a cluster to dump from\n");
        return 1;
    }
    if (cmd_rpc_dbd(prog, "acct_assoc_list", json_object(), &list, &error)
        < 0) {
        fprintf(stderr, "%s: error: Problem talking to the database: %s\n",
                prog, error.text);
        return 1;
    }
    if (smgr_dump_text(&b, list, cluster) < 0)
        fprintf(stderr, " Cluster %s does not exist\n", cluster);
    else if (!(f = file ? fopen(file, "w") : stdout))
        fprintf(stderr, " Can't open file %s: %s\n", file, strerror(errno));
    else {
        fputs(fmt_buf_str(&b), f);
        rc = (f != stdout && fclose(f) != 0) ? 1 : 0;
    }
    free(b.s);
    json_decref(list);
    return rc;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    struct fmt_buf b = {0};
    char chunk[4096];
    size_t n;

    if (!f)
        return NULL;
    while ((n = fread(chunk, 1, sizeof(chunk) - 1, f)) > 0) {
        chunk[n] = '\0';
        fmt_buf_puts(&b, chunk);
    }
    fclose(f);
    return b.s ? b.s : xstrdup("");
}

int smgr_load(const char *prog, int argc, char **argv, bool immediate)
{
    const char *file = file_arg(argc, argv);
    char *text;
    json_t *plan, *body, *resp, *v;
    int bad = 0, rc = 0;
    size_t i, j;

    (void)immediate; /* each step is committed as it goes (see
                      * docs/compatibility.md) */
    if (!file && argc > 0)
        file = argv[0];
    if (!file || !(text = read_all(file))) {
        fprintf(stderr, " Can't open file %s: %s\n", file ? file : "(none)",
                file ? strerror(errno) : "no file given");
        return 1;
    }
    if (!(plan = smgr_load_plan(text, &bad))) {
        fprintf(stderr, " error: line %d of %s is not a dump file line\n",
                bad, file);
        free(text);
        return 1;
    }
    json_array_foreach(plan, i, body) {
        drv_error_t error = {{0}};
        json_object_set_new(body, "dry_run", json_false());
        if (cmd_rpc_dbd(prog, "acct_modify", json_incref(body), &resp, &error)
            < 0) {
            fprintf(stderr, " Problem loading %s: %s\n",
                    json_string_value(json_object_get(body, "entity")),
                    error.text);
            rc = 1;
            break;
        }
        json_array_foreach(json_object_get(resp, "changed"), j, v)
            printf("%s\n", json_string_value(v));
        json_decref(resp);
    }
    json_decref(plan);
    free(text);
    return rc;
}
