/* SPDX-License-Identifier: Apache-2.0
 *
 * ha.c - the Raft group of controllers (ha.h)
 *
 * An entry is one JSON array of event records (event.h), the records one
 * loop turn of the leader made.  The leader has applied them already; it
 * skips its own entries when Raft applies them (every entry committed
 * after its barrier is its own: another leader would have ended its term,
 * and a leader that loses its term re-executes itself).  Everyone else
 * applies entries through ctld_replay_record().
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <raft.h>
#include <raft/uv.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/ha.h"
#include "ctld/ha_disk.h"
#include "ctld/ha_transport.h"
#include "ctld/state.h"

#define HA_POLL_MS 100            /* how often the role is looked at */
#define HA_ELECTION_MS 1000       /* Raft election timeout */
#define HA_HEARTBEAT_MS 100       /* Raft heartbeat */
#define HA_SNAPSHOT_ENTRIES 4096  /* entries between snapshots */
#define HA_SNAPSHOT_TRAILING 512  /* entries kept after one */
#define HA_STUCK_MS 5000          /* the log not written for this long */

/* A group that failed to start (ha_start()'s fail_io). */
static struct ha *abandoned;

/* The answer to requests whose entry may or may not be committed (this
 * controller lost its term, or could not write it, after it took them
 * in): what Slurm's commands report when the controller goes away after
 * the request was sent.  Not the standby error: a command passes a request
 * refused that way on to the next controller, and this one may already
 * have been done. */
#define OUTCOME_UNKNOWN EDRV_SOCKET_ZERO_BYTES_SENT

/* One proposed entry and the answers waiting for it. */
struct proposal {
    struct raft_apply req;
    struct ha *ha;
    void *acks;
    struct proposal *next;
};

struct ha {
    struct ctld *ctld;
    struct raft raft;
    struct raft_io io;
    struct raft_uv_transport transport;
    struct raft_fsm fsm;
    struct raft_barrier barrier;
    uv_timer_t poll;
    char **argv;
    raft_id self;
    json_t *pending;         /* this turn's records */
    struct proposal *inflight, *inflight_tail;
    bool started;            /* raft_start() returned: restores replace */
    bool barrier_sent;
    bool leading;            /* barrier applied: acting leader */
    raft_index stored_seen;  /* last_stored when watch_disk() saw it move */
    uint64_t stored_since;   /* ... at this uv_now() */
};

bool ha_configured(const struct slurm_conf *conf)
{
    return conf->ctld_backup_count > 0;
}

long ha_self_index(const struct slurm_conf *conf, const char *name,
                   drv_error_t *error)
{
    char host[HOST_NAME_MAX + 1] = "";
    long found = -1;

    if (!name) {
        if (gethostname(host, sizeof(host) - 1) < 0)
            host[0] = '\0';
        host[strcspn(host, ".")] = '\0'; /* the short name, as Slurm */
        name = host;
    }
    for (size_t i = 0; i <= conf->ctld_backup_count; i++) {
        if (strcmp(conf_ctld_name(conf, i), name))
            continue;
        if (found >= 0) {
            errprintf(error, "SlurmctldHost=%s is listed twice: start each "
                      "controller with -N NAME", name);
            return -1;
        }
        found = (long)i;
    }
    if (found < 0)
        errprintf(error, "no SlurmctldHost line names '%s' (start the "
                  "controller with -N NAME)", name);
    return found;
}

/* --- the state machine ------------------------------------------------- */

static int fsm_apply(struct raft_fsm *fsm, const struct raft_buffer *buf,
                     void **result)
{
    struct ha *ha = fsm->data;
    json_error_t jerr;
    json_t *recs, *rec;
    size_t i;

    *result = NULL;
    if (ha->leading)
        return 0; /* our own entry: applied when it was made */
    if (!(recs = json_loadb(buf->base, buf->len, 0, &jerr))
        || !json_is_array(recs)) {
        log_error("ha: entry %llu is not a record list (%s): skipped",
                  (unsigned long long)raft_last_applied(&ha->raft) + 1,
                  jerr.text);
        json_decref(recs);
        return 0;
    }
    ha->ctld->replaying = true;
    json_array_foreach(recs, i, rec) {
        drv_error_t e = {{0}};
        if (ctld_replay_record(ha->ctld, rec, &e) < 0)
            log_error("ha: a replicated record: %s", e.text);
    }
    ha->ctld->replaying = false;
    json_decref(recs);
    return 0;
}

static bool busy(const struct ha *ha)
{
    /* The leader's tables run ahead of what Raft applied while entries
     * are in flight: a snapshot then would not match its index. */
    return ha->inflight || json_array_size(ha->pending);
}

static int fsm_snapshot(struct raft_fsm *fsm, struct raft_buffer *bufs[],
                        unsigned *n)
{
    struct ha *ha = fsm->data;
    json_t *state;
    char *text;
    size_t len;

    if (busy(ha))
        return RAFT_BUSY;
    state = state_to_json(ha->ctld);
    text = json_dumps(state, JSON_COMPACT);
    json_decref(state);
    if (!text)
        return RAFT_NOMEM;
    len = strlen(text);
    *bufs = raft_malloc(sizeof(**bufs));
    if (!*bufs || !((*bufs)->base = raft_malloc((len + 7) & ~(size_t)7))) {
        raft_free(*bufs);
        free(text);
        return RAFT_NOMEM;
    }
    memcpy((*bufs)->base, text, len); /* padded as entries (ha_flush()) */
    memset((char *)(*bufs)->base + len, ' ', ((len + 7) & ~(size_t)7) - len);
    (*bufs)->len = (len + 7) & ~(size_t)7;
    *n = 1;
    free(text);
    return 0;
}

static void reexec(struct ha *ha, const char *why)
{
    log_error("ha: %s: starting again from the replicated log", why);
    execv("/proc/self/exe", ha->argv);
    log_fatal("ha: re-executing: %s", strerror(errno));
}

static void disk_failed(void *arg, int status)
{
    char why[128];

    snprintf(why, sizeof(why), "writing the Raft log: %s (is "
             "StateSaveLocation full?)", raft_strerror(status));
    reexec(arg, why);
}

static int fsm_restore(struct raft_fsm *fsm, struct raft_buffer *buf)
{
    struct ha *ha = fsm->data;
    drv_error_t e = {{0}};
    json_error_t jerr;
    json_t *snap;
    int rc;

    if (ha->started) /* a snapshot sent by the leader: tables are full */
        reexec(ha, "the leader sent a snapshot");
    if (!(snap = json_loadb(buf->base, buf->len, 0, &jerr))) {
        log_error("ha: snapshot: %s", jerr.text);
        return RAFT_CORRUPT;
    }
    ha->ctld->replaying = true;
    rc = state_load(ha->ctld, snap, &e);
    ha->ctld->replaying = false;
    json_decref(snap);
    if (rc < 0) {
        log_error("ha: snapshot: %s", e.text);
        return RAFT_CORRUPT;
    }
    raft_free(buf->base);
    return 0;
}

/* --- proposals ---------------------------------------------------------- */

void ha_append(struct ha *ha, json_t *rec)
{
    json_array_append(ha->pending, rec);
}

static void proposal_done(struct raft_apply *req, int status, void *result)
{
    struct proposal *p = req->data;
    struct ha *ha = p->ha;

    (void)result;
    if (ha->inflight != p)
        log_error("ha: entries committed out of order");
    ha->inflight = p->next;
    if (!ha->inflight)
        ha->inflight_tail = NULL;
    ctld_answer_acks(ha->ctld, p->acks, status ? OUTCOME_UNKNOWN : 0,
                     status ? raft_strerror(status) : NULL);
    free(p);
    if (status)
        reexec(ha, raft_strerror(status));
}

void ha_flush(struct ha *ha, void *acks)
{
    struct raft_buffer buf;
    struct proposal *p;
    char *text;
    size_t len;
    int rc;

    if (!json_array_size(ha->pending)) {
        if (!acks)
            return;
        if (ha->inflight_tail) /* they wait for what they depend on */
            ha->inflight_tail->acks = ctld_acks_join(ha->inflight_tail->acks,
                                                     acks);
        else
            ctld_answer_acks(ha->ctld, acks, 0, NULL);
        return;
    }
    text = json_dumps(ha->pending, JSON_COMPACT);
    json_array_clear(ha->pending);
    len = text ? strlen(text) : 0;
    /* libraft's disk format pads each entry to 8 bytes and gives the
     * padded length back when it loads it: pad with spaces, which JSON
     * ignores. */
    buf.len = (len + 7) & ~(size_t)7;
    if (!text || !(buf.base = raft_malloc(buf.len))) {
        free(text);
        ctld_answer_acks(ha->ctld, acks, ENOMEM, NULL);
        reexec(ha, "out of memory proposing an entry");
    }
    memcpy(buf.base, text, len);
    memset((char *)buf.base + len, ' ', buf.len - len);
    free(text);
    p = xzalloc(sizeof(*p));
    p->ha = ha;
    p->acks = acks;
    p->req.data = p;
    if ((rc = raft_apply(&ha->raft, &p->req, &buf, 1, proposal_done)) != 0) {
        raft_free(buf.base);
        ctld_answer_acks(ha->ctld, acks, OUTCOME_UNKNOWN, raft_strerror(rc));
        free(p);
        reexec(ha, raft_strerror(rc));
    }
    if (ha->inflight_tail)
        ha->inflight_tail->next = p;
    else
        ha->inflight = p;
    ha->inflight_tail = p;
}

/* --- roles -------------------------------------------------------------- */

static void barrier_done(struct raft_barrier *req, int status)
{
    struct ha *ha = req->data;

    if (status) {
        log_error("ha: barrier: %s", raft_strerror(status));
        ha->barrier_sent = false;
        return;
    }
    ha->leading = true;
    log_info("ha: controller %llu (%s) now primary, term %llu: every "
             "earlier entry applied", (unsigned long long)ha->self,
             conf_ctld_name(ha->ctld->conf, ha->self - 1),
             (unsigned long long)ha->raft.current_term);
    ctld_take_over(ha->ctld);
}

/* Entries wait to be written and none has been for HA_STUCK_MS: the
 * disk hangs, or failed without telling (ha_disk.h catches the failures
 * libraft hears of).  A leader would hold its answers and its barrier
 * forever, a follower fall silently behind: start again from the log on
 * disk. */
static void watch_disk(struct ha *ha)
{
    raft_index stored = ha->raft.last_stored;
    uint64_t now = uv_now(ha->ctld->loop);

    if (stored >= raft_last_index(&ha->raft) || stored != ha->stored_seen
        || !ha->stored_since) {
        ha->stored_seen = stored;
        ha->stored_since = now;
        return;
    }
    if (now - ha->stored_since >= HA_STUCK_MS)
        reexec(ha, "the Raft log could not be written for 5 s");
}

static void poll_cb(uv_timer_t *t)
{
    struct ha *ha = t->data;
    int state = raft_state(&ha->raft);

    watch_disk(ha);
    if (ha->leading && state != RAFT_LEADER)
        reexec(ha, "leadership lost");
    if (state == RAFT_LEADER && !ha->barrier_sent) {
        ha->barrier_sent = true;
        ha->barrier.data = ha;
        if (raft_barrier(&ha->raft, &ha->barrier, barrier_done) != 0)
            ha->barrier_sent = false;
        log_info("ha: elected leader (term %llu)",
                 (unsigned long long)ha->raft.current_term);
    }
}

bool ha_leading(const struct ha *ha)
{
    /* libraft steps a leader down when a majority has not answered within
     * an election timeout: from then on it serves nothing, reads included,
     * though poll_cb() re-executes it only at its next turn. */
    return ha && ha->leading
           && raft_state((struct raft *)&ha->raft) == RAFT_LEADER;
}

const char *ha_role(const struct ha *ha)
{
    switch (raft_state((struct raft *)&ha->raft)) {
    case RAFT_LEADER:
        return "leader";
    case RAFT_FOLLOWER:
        return "follower";
    case RAFT_CANDIDATE:
        return "candidate";
    default:
        return "unavailable";
    }
}

uint64_t ha_term(const struct ha *ha)
{
    return ha->raft.current_term;
}

static void transfer_done(struct raft_transfer *req)
{
    free(req);
}

int ha_transfer(struct ha *ha, unsigned to, drv_error_t *error)
{
    struct raft_transfer *req;
    int rc;

    if (to == ha->self)
        return 0; /* it leads already (libraft: RAFT_BADID) */
    req = xzalloc(sizeof(*req));
    rc = raft_transfer(&ha->raft, req, to, transfer_done);

    if (rc) {
        free(req);
        errprintf(error, "%s", raft_strerror(rc));
        return -1;
    }
    return 0;
}

/* --- start and stop ----------------------------------------------------- */

static int bootstrap(struct ha *ha, const struct slurm_conf *conf,
                     drv_error_t *error)
{
    struct raft_configuration rc;
    int rv = 0;

    raft_configuration_init(&rc);
    for (size_t i = 0; i <= conf->ctld_backup_count && !rv; i++) {
        char addr[300];
        snprintf(addr, sizeof(addr), "%s:%u", conf_ctld_addr(conf, i),
                 (unsigned)conf->raft_port);
        rv = raft_configuration_add(&rc, (raft_id)(i + 1), addr, RAFT_VOTER);
    }
    if (!rv && (rv = raft_bootstrap(&ha->raft, &rc)) == RAFT_CANTBOOTSTRAP)
        rv = 0; /* it has state: started before */
    raft_configuration_close(&rc);
    if (rv)
        errprintf(error, "Raft bootstrap: %s", raft_strerror(rv));
    return rv ? -1 : 0;
}

struct ha *ha_start(struct ctld *ctld, long self, const char *dir,
                    char **argv, drv_error_t *error)
{
    const struct slurm_conf *conf = ctld->conf;
    struct ha *ha = xzalloc(sizeof(*ha));
    char addr[300];
    int rv;

    ha->ctld = ctld;
    ha->argv = argv;
    ha->self = (raft_id)self + 1;
    ha->pending = json_array();
    snprintf(addr, sizeof(addr), "%s:%u", conf_ctld_addr(conf, (size_t)self),
             (unsigned)conf->raft_port);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        errprintf(error, "%s: %s", dir, strerror(errno));
        goto fail;
    }
    ha->fsm = (struct raft_fsm){.version = 1,
                                .data = ha,
                                .apply = fsm_apply,
                                .snapshot = fsm_snapshot,
                                .restore = fsm_restore};
    if (ha_transport_init(&ha->transport, ctld, error) < 0)
        goto fail;
    if ((rv = raft_uv_init(&ha->io, ctld->loop, dir, &ha->transport))
        || (ha_disk_guard(&ha->io, disk_failed, ha), 0)
        || (rv = raft_init(&ha->raft, &ha->io, &ha->fsm, ha->self, addr))) {
        errprintf(error, "Raft in %s: %s", dir, raft_strerror(rv));
        goto fail_io;
    }
    raft_set_election_timeout(&ha->raft, HA_ELECTION_MS);
    raft_set_heartbeat_timeout(&ha->raft, HA_HEARTBEAT_MS);
    raft_set_snapshot_threshold(&ha->raft, conf->raft_snapshot
                                               ? conf->raft_snapshot
                                               : HA_SNAPSHOT_ENTRIES);
    raft_set_snapshot_trailing(&ha->raft, conf->raft_snapshot
                                              ? conf->raft_snapshot / 8
                                              : HA_SNAPSHOT_TRAILING);
    raft_set_pre_vote(&ha->raft, true);
    if (bootstrap(ha, conf, error) < 0)
        goto fail_io;
    if ((rv = raft_start(&ha->raft))) {
        errprintf(error, "Raft start: %s (%s)", raft_strerror(rv),
                  raft_errmsg(&ha->raft));
        goto fail_io;
    }
    ha->started = true;
    state_restored(ctld);
    uv_timer_init(ctld->loop, &ha->poll);
    ha->poll.data = ha;
    uv_timer_start(&ha->poll, poll_cb, HA_POLL_MS, HA_POLL_MS);
    log_info("ha: controller %ld of %zu (%s), Raft at %s, log in %s",
             self + 1, conf->ctld_backup_count + 1,
             conf_ctld_name(conf, (size_t)self), addr, dir);
    return ha;
fail_io:
    /* libraft's io and transport close only through the loop, and the
     * caller exits at once (log_fatal): they stay reachable from here
     * for that exit, not freed half-closed. */
    abandoned = ha;
    return NULL;
fail:
    json_decref(ha->pending);
    free(ha);
    return NULL;
}

void ha_stop(struct ha *ha)
{
    if (!ha)
        return;
    uv_timer_stop(&ha->poll);
    uv_close((uv_handle_t *)&ha->poll, NULL);
    raft_close(&ha->raft, NULL);
}

void ha_destroy(struct ha *ha)
{
    if (!ha)
        return;
    raft_uv_close(&ha->io);
    ha_transport_free(&ha->transport);
    json_decref(ha->pending);
    free(ha);
}
