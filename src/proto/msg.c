/* SPDX-License-Identifier: Apache-2.0
 *
 * msg.c - building and checking message envelopes
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/msg_private.h"

static json_t *envelope(const char *type, const char *cred, json_t *body)
{
    json_t *msg;

    if (!type || !*type || (body && !json_is_object(body))) {
        json_decref(body);
        errno = EINVAL;
        return NULL;
    }
    if (!body && !(body = json_object()))
        goto nomem;
    if (!(msg = json_object()))
        goto nomem;
    if (json_object_set_new(msg, "v", json_integer(PROTO_VERSION)) < 0
        || json_object_set_new(msg, "type", json_string(type)) < 0
        || (cred && json_object_set_new(msg, "cred", json_string(cred)) < 0)
        || json_object_set(msg, "body", body) < 0) {
        json_decref(msg);
        goto nomem;
    }
    json_decref(body);
    return msg;
nomem:
    json_decref(body);
    errno = ENOMEM;
    return NULL;
}

json_t *proto_msg_request(const char *type, const char *cred, json_t *body)
{
    return envelope(type, cred, body);
}

json_t *proto_msg_response(const char *type, json_t *body)
{
    return envelope(type, NULL, body);
}

json_t *proto_msg_error(int errnum, const char *errstr)
{
    json_t *body;

    if (!(body = json_pack("{s:i}", "errnum", errnum ? errnum : EDRV_ERROR)))
        goto nomem;
    if (errstr && *errstr
        && json_object_set_new(body, "errstr", json_string(errstr)) < 0) {
        json_decref(body);
        goto nomem;
    }
    return envelope(PROTO_TYPE_ERROR, NULL, body);
nomem:
    errno = ENOMEM;
    return NULL;
}

int proto_msg_parse(json_t *msg, struct proto_msg *out, drv_error_t *error)
{
    json_t *v = json_object_get(msg, "v");
    json_t *type = json_object_get(msg, "type");
    json_t *cred = json_object_get(msg, "cred");
    json_t *body = json_object_get(msg, "body");

    errno = EPROTO;
    if (!json_is_integer(v))
        return errprintf(error, "message has no integer \"v\"");
    if (json_integer_value(v) != PROTO_VERSION) {
        errno = EPROTONOSUPPORT;
        return errprintf(error, "unsupported protocol version %lld",
                         (long long)json_integer_value(v));
    }
    if (!json_is_string(type) || json_string_length(type) == 0)
        return errprintf(error, "message has no \"type\" string");
    if (cred && !json_is_string(cred))
        return errprintf(error, "message \"cred\" is not a string");
    if (body && !json_is_object(body))
        return errprintf(error, "message \"body\" is not an object");
    if (!body) {
        if (!(body = json_object())
            || json_object_set_new(msg, "body", body) < 0) {
            errno = ENOMEM;
            return errprintf(error, "out of memory");
        }
    }
    out->v = PROTO_VERSION;
    out->type = json_string_value(type);
    out->cred = cred ? json_string_value(cred) : NULL;
    out->body = body;
    return 0;
}

void proto_msg_error_parse(const json_t *body, int *errnum,
                           const char **errstr)
{
    json_t *n = json_object_get(body, "errnum");
    json_t *s = json_object_get(body, "errstr");
    json_int_t num = json_is_integer(n) ? json_integer_value(n) : 0;

    *errnum = (num > 0 && num <= INT_MAX) ? (int)num : EDRV_ERROR;
    *errstr = (json_is_string(s) && json_string_length(s) > 0)
                  ? json_string_value(s)
                  : NULL;
}

char *proto__request_text(const char *type, json_t *body, size_t *len,
                          drv_error_t *error)
{
    char *text;

    if (!type || !*type || (body && !json_is_object(body))) {
        json_decref(body);
        errno = EINVAL;
        errprintf(error, "invalid request: no type or a body that is not "
                         "an object");
        return NULL;
    }
    /* One dump serves the credential's digest and the frame (the digest
     * is over this very text: auth.h); a second dump was part of the 19%
     * of a launch storm's controller CPU spent in jansson's dumps
     * (bench/README.md). */
    text = body ? json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS)
                : strdup("{}");
    json_decref(body);
    if (!text) {
        errno = ENOMEM;
        errprintf(error, "out of memory");
        return NULL;
    }
    *len = strlen(text);
    return text;
}

int proto__request_frame(proto_auth_t *auth, const char *type, json_t *body,
                         char **buf, size_t *len, drv_error_t *error)
{
    size_t text_len;
    char *text = proto__request_text(type, body, &text_len, error);
    int rc;

    if (!text)
        return -1;
    rc = proto__request_frame_text(auth, type, text, text_len, buf, len,
                                   error);
    free(text);
    return rc;
}

int proto__request_frame_text(proto_auth_t *auth, const char *type,
                              const char *text, size_t len, char **buf,
                              size_t *buf_len, drv_error_t *error)
{
    static const char body_key[] = ",\"body\":";
    json_t *head;
    char *cred, *head_text, *frame;
    size_t head_len, n;

    if (!type || !*type || !text || len < 2 || text[0] != '{') {
        errno = EINVAL;
        return errprintf(error, "invalid request: no type or a body that is "
                                "not an object");
    }
    if (!(cred = proto_auth_encode_text(auth, type, text, len, error)))
        return -1;
    head = json_pack("{s:i s:s s:s}", "v", PROTO_VERSION, "type", type,
                     "cred", cred);
    free(cred);
    head_text = head ? json_dumps(head, JSON_COMPACT) : NULL;
    json_decref(head);
    if (!head_text) {
        errno = ENOMEM;
        return errprintf(error, "out of memory");
    }
    /* {"v":..,"type":..,"cred":..} becomes {"v":..,...,"body":TEXT} */
    head_len = strlen(head_text) - 1;
    n = head_len + sizeof(body_key) - 1 + len + 1;
    if (n > PROTO_FRAME_MAX) {
        free(head_text);
        errno = EMSGSIZE;
        return errprintf(error, "'%s' request exceeds %u bytes", type,
                         PROTO_FRAME_MAX);
    }
    if (!(frame = malloc(PROTO_FRAME_HDR + n))) {
        free(head_text);
        errno = ENOMEM;
        return errprintf(error, "out of memory");
    }
    proto_frame_put_header(frame, (uint32_t)n);
    memcpy(frame + PROTO_FRAME_HDR, head_text, head_len);
    memcpy(frame + PROTO_FRAME_HDR + head_len, body_key,
           sizeof(body_key) - 1);
    memcpy(frame + PROTO_FRAME_HDR + head_len + sizeof(body_key) - 1, text,
           len);
    frame[PROTO_FRAME_HDR + n - 1] = '}';
    free(head_text);
    *buf = frame;
    *buf_len = PROTO_FRAME_HDR + n;
    return 0;
}

int proto__response_parse(json_t *msg, const char *type, const char *peer,
                          json_t **body, bool *server_error,
                          drv_error_t *error)
{
    struct proto_msg m;
    drv_error_t perr = { { 0 } };

    *server_error = false;
    if (proto_msg_parse(msg, &m, &perr) < 0) {
        if (errno == ENOMEM)
            return errprintf(error, "out of memory");
        errno = EDRV_PROTOCOL_MALFORMED;
        return errprintf(error, "%s: invalid response: %s", peer, perr.text);
    }
    if (!strcmp(m.type, PROTO_TYPE_ERROR)) {
        int errnum;
        const char *errstr;

        proto_msg_error_parse(m.body, &errnum, &errstr);
        *server_error = true;
        errprintf(error, "%s", errstr ? errstr : drv_strerror(errnum));
        errno = errnum;
        return -1;
    }
    if (strcmp(m.type, type) != 0) {
        errno = EDRV_PROTOCOL_MALFORMED;
        return errprintf(error, "%s: answered '%s' to a '%s' request", peer,
                         m.type, type);
    }
    *body = m.body;
    return 0;
}


/* Append each array of 'from' to the same array of 'to'; set the other
 * members.  0, or -1 without memory. */
static int join_body(json_t *to, json_t *from)
{
    const char *key;
    json_t *v, *have;

    json_object_foreach(from, key, v) {
        have = json_object_get(to, key);
        if (json_is_array(v) && json_is_array(have)) {
            if (json_array_extend(have, v) < 0)
                return -1;
        } else if (json_object_set(to, key, v) < 0) {
            return -1;
        }
    }
    return 0;
}

json_t *proto_msg_join_part(json_t **acc, json_t *msg)
{
    json_t *to, *from = json_object_get(msg, "body");
    const char *type = json_string_value(json_object_get(msg, "type"));
    bool part = json_is_true(json_object_get(msg, "more")); /* more follow */

    if (!*acc || (type && !strcmp(type, PROTO_TYPE_ERROR))) {
        json_decref(*acc);
        *acc = NULL;
        if (!part)
            return msg;
        *acc = msg;
        return NULL;
    }
    to = json_object_get(*acc, "body");
    if (json_is_object(to) && json_is_object(from)
        && join_body(to, from) < 0) {
        json_decref(*acc);
        *acc = NULL;
        json_decref(msg);
        errno = ENOMEM;
        return NULL;
    }
    if (part) {
        json_decref(msg);
        return NULL;
    }
    if (json_is_object(to) && json_object_set(msg, "body", to) < 0) {
        json_decref(msg);
        msg = NULL;
        errno = ENOMEM;
    }
    json_decref(*acc);
    *acc = NULL;
    return msg;
}

void proto__sigpipe_ignore(void)
{
    struct sigaction sa;

    if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL
        && !(sa.sa_flags & SA_SIGINFO)) {
        sa.sa_handler = SIG_IGN;
        sigaction(SIGPIPE, &sa, NULL);
    }
}
