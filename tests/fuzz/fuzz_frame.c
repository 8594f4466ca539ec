/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_frame.c - bytes from the network: the frame decoder, the message
 * envelope and every message body against its schema
 *
 * The input is cut into chunks whose sizes come from its first byte, as
 * reads off a socket arrive; each decoded message is parsed and, when its
 * type has a schema, its body checked against it (what a daemon does
 * before any handler runs, proto/server.c).  The decoder's limit is kept
 * small so that the length prefix's bound is exercised too.
 */
#include "fuzz.h"

#include <errno.h>

#include <jansson.h>

#include "common/error.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/schema.h"

static void check_msg(json_t *msg)
{
    struct proto_msg m;
    const struct proto_schema *schema;
    drv_error_t error = {{0}};

    if (proto_msg_parse(msg, &m, &error) < 0)
        return;
    if ((schema = proto_schema_find(m.type)) && schema->body)
        (void)schema_check(m.body, schema->body, &error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    proto_decoder_t *d = proto_decoder_create();
    drv_error_t error = {{0}};
    size_t chunk = size ? (size_t)data[0] % 64 + 1 : 1, at = size ? 1 : 0;
    json_t *msg;

    if (!d)
        abort();
    proto_decoder_set_max(d, 1u << 20);
    while (at < size) {
        size_t n = size - at < chunk ? size - at : chunk;
        if (proto_decoder_feed(d, data + at, n) < 0)
            break;
        at += n;
        while ((msg = proto_decoder_next(d, &error))) {
            check_msg(msg);
            json_decref(msg);
        }
        if (errno == EPROTO) /* garbage: a daemon closes the connection */
            break;
    }
    proto_decoder_destroy(d);
    return 0;
}
