/* SPDX-License-Identifier: Apache-2.0
 *
 * sacctmgr - view and change accounts, users, QOS and associations in
 * droverdbd (Slurm 22.05's sacctmgr: commands, messages, show layouts)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>
#include <unistd.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/slurm_texts.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sacctmgr_dump.h"
#include "cmd/lib/sacctmgr_print.h"
#include "common/xalloc.h"

static const char *prog = "sacctmgr";
static bool immediate;
/* -r: Slurm's readonly mode, no add, modify, delete or load */
static bool readonly;

/* Slurm's refusal of a change in readonly mode.  Returns 1 (the exit
 * status) when refused, else 0. */
static int refused_readonly(void)
{
    if (!readonly)
        return 0;
    fprintf(stderr, "Can't run this command in readonly mode.\n");
    return 1;
}
static struct smgr_out out_opts;

static const struct cmd_opt opts[] = {
    {"immediate", 'i', no_argument, NULL},
    {"noheader", 'n', no_argument, NULL},
    {"parsable", 'p', no_argument, NULL},
    {"parsable2", 'P', no_argument, NULL},
    {"associations", 's', no_argument, NULL},
    {"oneliner", 'o', no_argument, NULL},
    {"readonly", 'r', no_argument, NULL},
    {"quiet", 'Q', no_argument, NULL},
    {"verbose", 'v', no_argument, NULL},
    {"version", 'V', no_argument, NULL},
    {"help", 'h', no_argument, NULL},
    {"usage", 'u', no_argument, NULL},
    CMD_OPT_END,
};

/* Key aliases: what sacctmgr accepts, what acct_modify expects. */
static char *norm_key(const char *key, size_t len)
{
    static const char *const alias[][2] = {
        {"names", "name"}, {"accounts", "account"}, {"acct", "account"},
        {"users", "user"}, {"clusters", "cluster"},
        {"partitions", "partition"}, {"defaultacct", "defaultaccount"},
        {"defaultaccounts", "defaultaccount"}, {"admin", "adminlevel"},
        {"qoslevel", "qos"}, {"defaultqos", "defaultqos"},
        {"descr", "description"}, {"org", "organization"},
        {"parentname", "parent"}, {NULL, NULL},
    };
    char *k = xasprintf("%.*s", (int)len, key);

    for (char *p = k; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    for (size_t i = 0; alias[i][0]; i++) {
        if (!strcmp(k, alias[i][0])) {
            free(k);
            return xstrdup(alias[i][1]);
        }
    }
    return k;
}

/* "a,b" with each name prefixed by 'sign': "+a,+b".  Static storage,
 * overwritten by the next call (parse_args() copies it). */
static const char *signed_list(const char *names, char sign)
{
    static char *out;
    size_t n = 0;

    free(out);
    out = xzalloc(strlen(names) * 2 + 2);
    for (const char *p = names; *p;) {
        size_t len = strcspn(p, ",");
        if (len) {
            if (n)
                out[n++] = ',';
            out[n++] = sign;
            memcpy(out + n, p, len);
            n += len;
        }
        p += len + (p[len] == ',');
    }
    return out;
}

struct args {
    json_t *names, *where, *set;
    char *format;
    bool withassoc;
};

static void parse_args(int argc, char **argv, bool set_mode, struct args *a)
{
    a->names = json_array();
    a->where = json_object();
    a->set = json_object();
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (!strcasecmp(argv[i], "where")) {
            set_mode = false;
        } else if (!strcasecmp(argv[i], "set")) {
            set_mode = true;
        } else if (!strncasecmp(argv[i], "withassoc", 9)) {
            a->withassoc = true;
        } else if (eq) {
            size_t klen = (size_t)(eq - argv[i]);
            char sign = klen && (eq[-1] == '+' || eq[-1] == '-') ? eq[-1] : 0;
            char *k = norm_key(argv[i], klen - (sign != 0));
            if (sign && set_mode && !strcmp(k, "qos")) {
                /* qos+=a,b / qos-=a: each name added / removed, as the
                 * database's "+a,+b" / "-a" */
                json_object_set_new(a->set, k, json_string_nocheck(
                    signed_list(eq + 1, sign)));
                free(k);
                continue;
            }
            if (sign) { /* the database names it: " Unknown option" */
                free(k);
                k = norm_key(argv[i], klen);
            }
            if (!strcmp(k, "format"))
                a->format = xstrdup(eq + 1);
            else if (!strcmp(k, "name") && !set_mode)
                json_array_append_new(a->names, json_string(eq + 1));
            else
                json_object_set_new(set_mode ? a->set : a->where, k,
                                    json_string(eq + 1));
            free(k);
        } else {
            json_array_append_new(a->names, json_string(argv[i]));
        }
    }
}

static void free_args(struct args *a)
{
    json_decref(a->names);
    json_decref(a->where);
    json_decref(a->set);
    free(a->format);
}

static int db_call(const char *type, json_t *body, json_t **resp,
                   drv_error_t *error)
{
    return cmd_rpc_dbd(prog, type, body, resp, error);
}

static void db_error(const drv_error_t *error)
{
    fprintf(stderr, "%s: error: Problem talking to the database: %s\n", prog,
            error->text);
}

static bool is_io_error(int e)
{
    return e == ECONNREFUSED || e == ETIMEDOUT || e == EHOSTUNREACH
           || e == ENETUNREACH || e == ECONNRESET || e == EPIPE
           || e == ENOTCONN;
}

/* Slurm's commit_check(): ask, wait up to 30 s for y/n on stdin. */
static bool commit_check(const char *question)
{
    char c = 0;
    int ans = 0;

    printf("%s (You have 30 seconds to decide)\n", question);
    while (c != 'Y' && c != 'y' && c != 'N' && c != 'n' && c != '\n') {
        fd_set fds;
        struct timeval tv = {30, 0};
        int got;
        if (c)
            printf("Y or N please\n");
        printf("(N/y): ");
        fflush(stdout);
        FD_ZERO(&fds);
        FD_SET(0, &fds);
        if ((ans = select(1, &fds, NULL, NULL, &tv)) <= 0)
            break;
        got = getchar();
        printf("\n");
        if (got == EOF)
            return false; /* no answer: nothing is committed */
        c = (char)got;
    }
    if (ans == 0)
        printf("timeout\n");
    return c == 'Y' || c == 'y';
}

static const char *entity_of(const char *word)
{
    size_t len = strlen(word);

    if (!len)
        return NULL;
    if (!strncasecmp(word, "accounts", len) || !strcasecmp(word, "acct"))
        return "account";
    if (len >= 5 && !strncasecmp(word, "associations", len))
        return "assoc";
    if (len >= 2 && !strncasecmp(word, "clusters", len))
        return "cluster";
    if (!strncasecmp(word, "qos", len))
        return "qos";
    if (len >= 2 && !strncasecmp(word, "tres", len))
        return "tres";
    if (!strncasecmp(word, "users", len))
        return "user";
    return NULL;
}

/* Register our cluster (as slurmctld's first contact does). */
static void register_cluster(void)
{
    const struct slurm_conf *c = cmd_conf(prog);
    drv_error_t error = {{0}};

    if (c->cluster_name && c->cluster_name[0])
        db_call("acct_assoc_list", json_pack("{s:s,s:I,s:b}", "cluster",
                                             c->cluster_name,
                                             "if_changed_since",
                                             (json_int_t)-2, "register", 1),
                NULL, &error);
}

static void print_lines(json_t *lines)
{
    json_t *v;
    size_t i;

    json_array_foreach(lines, i, v)
        printf("%s\n", json_string_value(v));
}

static const char *problem_word(const char *entity)
{
    return !strcmp(entity, "account") ? "accounts"
           : !strcmp(entity, "user")  ? "users"
           : !strcmp(entity, "qos")   ? "QOS"
                                      : "clusters";
}

/* add / modify / delete: a dry run, the summary, the question, the change
 * (one call with -i).
 */
static int change(const char *op, const char *entity, struct args *a)
{
    static const char *const nothing[] = {" Nothing new added.",
                                          " Nothing modified",
                                          " Nothing deleted"};
    int which = !strcmp(op, "add") ? 0 : !strcmp(op, "modify") ? 1 : 2;
    drv_error_t error = {{0}};
    json_t *resp = NULL, *body;
    int rc;

    if (refused_readonly())
        return 1;
    if (which == 1 && !json_object_size(a->set)) {
        fprintf(stderr, " You didn't give me anything to set\n");
        return 1;
    }
    if (which < 2)
        register_cluster();
    body = json_pack("{s:s,s:s,s:O,s:O,s:O,s:b}", "op", op, "entity", entity,
                     "names", a->names, "where", a->where, "set", a->set,
                     "dry_run", !immediate);
    rc = db_call("acct_modify", json_incref(body), &resp, &error);
    if (rc < 0) {
        json_decref(body);
        if (is_io_error(errno))
            db_error(&error);
        else if (errno == EDRV_ACCESS_DENIED && which == 0)
            fprintf(stderr, " Problem adding %s: %s\n", problem_word(entity),
                    error.text);
        else if (errno == EDRV_ACCESS_DENIED)
            fprintf(stderr, " Error with request: %s\n", error.text);
        else
            fprintf(stderr, "%s\n", error.text);
        return 1;
    }
    json_t *lines = json_object_get(resp, "changed");
    if (!json_array_size(lines)) {
        printf("%s\n", nothing[which]);
        json_decref(resp);
        json_decref(body);
        return which ? 1 : 0;
    }
    print_lines(lines);
    json_decref(resp);
    if (!immediate) {
        if (!commit_check("Would you like to commit changes?")) {
            printf(" Changes Discarded\n");
            json_decref(body);
            return 0;
        }
        json_object_set_new(body, "dry_run", json_false());
        if (db_call("acct_modify", body, NULL, &error) < 0) {
            fprintf(stderr, " Error with request: %s\n", error.text);
            return 1;
        }
        return 0;
    }
    json_decref(body);
    return 0;
}

static bool match_where(const json_t *where, const char *key, const char *v)
{
    const char *want = json_string_value(json_object_get(where, key));

    if (!want)
        return true;
    for (const char *p = want; *p;) {
        size_t len = strcspn(p, ",");
        if (strlen(v) == len && !strncasecmp(p, v, len))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

static bool named(const json_t *names, const char *v)
{
    json_t *n;
    size_t i;

    if (!json_array_size(names))
        return true;
    json_array_foreach(names, i, n) {
        for (const char *p = json_string_value(n); *p;) {
            size_t len = strcspn(p, ",");
            if (strlen(v) == len && !strncasecmp(p, v, len))
                return true;
            p += len + (p[len] == ',');
        }
    }
    return false;
}

static bool assoc_matches(const json_t *as, const json_t *where)
{
    static const char *const keys[] = {"cluster", "account", "user",
                                       "partition", NULL};

    for (size_t i = 0; keys[i]; i++) {
        if (!match_where(where, keys[i],
                         json_string_value(json_object_get(as, keys[i]))))
            return false;
    }
    return true;
}

static json_t *select_rows(json_t *list, enum smgr_kind kind, struct args *a)
{
    json_t *rows = json_array(), *r, *as;
    size_t i, j;

    if (kind == SMGR_QOS || kind == SMGR_ACCOUNT) {
        json_array_foreach(json_object_get(list, kind == SMGR_QOS ? "qos"
                                                                  : "accounts"),
                           i, r) {
            if (named(a->names, json_string_value(json_object_get(r, "name"))))
                json_array_append(rows, r);
        }
    } else if (kind == SMGR_USER) {
        json_array_foreach(json_object_get(list, "users"), i, r) {
            const char *name = json_string_value(json_object_get(r, "name"));
            if (!named(a->names, name))
                continue;
            if (!a->withassoc) {
                json_array_append(rows, r);
                continue;
            }
            json_array_foreach(json_object_get(list, "assocs"), j, as) {
                if (!strcmp(json_string_value(json_object_get(as, "user")),
                            name)
                    && assoc_matches(as, a->where))
                    json_array_append_new(rows, json_pack("{s:O,s:O}", "user",
                                                          r, "assoc", as));
            }
        }
    } else {
        json_array_foreach(json_object_get(list, "assocs"), i, as) {
            bool root = !strcmp(json_string_value(json_object_get(as,
                                                                  "account")),
                                "root")
                        && !json_string_value(json_object_get(as,
                                                              "user"))[0];
            if (kind == SMGR_CLUSTER
                    ? root && named(a->names, json_string_value(
                                                  json_object_get(as,
                                                                  "cluster")))
                    : assoc_matches(as, a->where))
                json_array_append(rows, as);
        }
    }
    return rows;
}

static int show(const char *entity, struct args *a)
{
    enum smgr_kind kind = !strcmp(entity, "assoc")     ? SMGR_ASSOC
                          : !strcmp(entity, "qos")     ? SMGR_QOS
                          : !strcmp(entity, "user")    ? SMGR_USER
                          : !strcmp(entity, "account") ? SMGR_ACCOUNT
                                                       : SMGR_CLUSTER;
    drv_error_t error = {{0}};
    struct fmt_buf buf = {0};
    json_t *list = NULL, *rows;
    int rc;

    if (kind == SMGR_CLUSTER && !strcmp(entity, "tres")) {
        /* the TRES this cluster tracks, from its slurm.conf */
        kind = SMGR_TRES;
        list = json_incref(json_null());
        rows = smgr_tres_rows(cmd_conf(prog)->accounting_storage_tres);
    } else if (db_call("acct_assoc_list", json_object(), &list,
                       &error) < 0) {
        db_error(&error);
        return 1;
    } else {
        rows = select_rows(list, kind, a);
    }
    rc = smgr_print(&buf, kind, a->withassoc, a->format, rows, &out_opts,
                    &error);
    if (rc < 0)
        fprintf(stderr, "%s\n", error.text);
    else
        fputs(fmt_buf_str(&buf), stdout);
    free(buf.s);
    json_decref(rows);
    json_decref(list);
    return rc < 0 ? 1 : 0;
}

static int no_entity(const char *verb)
{
    fprintf(stderr, "No valid entity in %s command\n", verb);
    fprintf(stderr, "Input line must include \"Account\", \"Cluster\", "
                    "\"QOS\", or \"User\"\n");
    return 1;
}

static int run(int argc, char **argv)
{
    const char *cmd = argv[0], *entity;
    size_t len = strlen(cmd);
    struct args a = {0};
    int rc;

    if (!strncasecmp(cmd, "version", len > 1 ? len : 2)) {
        cmd_print_version();
        return 0;
    }
    if (!strncasecmp(cmd, "help", len)) {
        fputs(sacctmgr_help_text, stdout);
        return 0;
    }
    if (!strncasecmp(cmd, "dump", len > 1 ? len : 2))
        return smgr_dump(prog, argc - 1, argv + 1);
    if (!strncasecmp(cmd, "load", len > 1 ? len : 2))
        return refused_readonly() ? 1 : smgr_load(prog, argc - 1, argv + 1, immediate);
    entity = argc > 1 ? entity_of(argv[1]) : NULL;
    if (!strncasecmp(cmd, "show", len) || !strncasecmp(cmd, "list", len)) {
        if (!entity)
            return no_entity("list");
        parse_args(argc - 2, argv + 2, false, &a);
        rc = show(entity, &a);
    } else if (!strncasecmp(cmd, "add", len) || !strncasecmp(cmd, "create",
                                                             len)) {
        if (!entity || !strcmp(entity, "assoc") || !strcmp(entity, "tres"))
            return no_entity("add");
        parse_args(argc - 2, argv + 2, true, &a);
        rc = change("add", entity, &a);
    } else if (!strncasecmp(cmd, "modify", len)
               || !strncasecmp(cmd, "update", len)) {
        if (!entity || !strcmp(entity, "assoc") || !strcmp(entity, "tres"))
            return no_entity("modify");
        parse_args(argc - 2, argv + 2, false, &a);
        rc = change("modify", entity, &a);
    } else if (!strncasecmp(cmd, "delete", len)
               || !strncasecmp(cmd, "remove", len)) {
        if (!entity || !strcmp(entity, "assoc") || !strcmp(entity, "tres"))
            return no_entity("delete");
        parse_args(argc - 2, argv + 2, false, &a);
        rc = change("delete", entity, &a);
    } else {
        fprintf(stderr, "invalid keyword: %s\n", cmd);
        return 1;
    }
    free_args(&a);
    return rc;
}

int main(int argc, char **argv)
{
    bool withassoc = false;
    int c;

    prog = cmd_prog_name(argv[0]);
    while ((c = cmd_getopt(argc, argv, opts)) != -1) {
        switch (c) {
        case 'i': immediate = true; break;
        case 'n': out_opts.noheader = true; break;
        case 'p': out_opts.parsable = 1; break;
        case 'P': out_opts.parsable = 2; break;
        case 's': withassoc = true; break;
        case 'o': break; /* each record is one line already */
        case 'r': readonly = true; break;
        case 'Q': case 'v': break;
        case 'V': cmd_print_version(); return 0;
        case 'h': case 'u': fputs(sacctmgr_help_text, stdout); return 0;
        default: return 1;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "%s: interactive mode is not supported; give a "
                        "command (see --help)\n", prog);
        return 1;
    }
    if (withassoc) {
        /* -s: "show user alice" lists its associations too */
        char **v = xzalloc((size_t)(argc - optind + 2) * sizeof(*v));
        int n = 0;
        for (int i = optind; i < argc; i++)
            v[n++] = argv[i];
        v[n++] = "withassoc";
        int rc = run(n, v);
        free(v);
        return rc;
    }
    return run(argc - optind, argv + optind);
}
