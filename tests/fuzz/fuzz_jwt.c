/* SPDX-License-Identifier: Apache-2.0
 *
 * fuzz_jwt.c - tokens as the controller checks them (proto/jwt_auth.h)
 *
 * Nothing but a token signed with the key may pass: the input is checked
 * against a fixed key, and an input that passes must be one this key
 * signed, for its user alice (the seed corpus holds such a token).
 */
#include "fuzz.h"

#include "proto/jwt_auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static proto_jwt_t *jwt;
    drv_error_t error = {{0}};
    char *token = fuzz_string(data, size), *user = NULL, *good;

    if (!jwt) {
        jwt = proto_jwt_from_key("0123456789abcdef0123456789abcdef", 32,
                                 &error);
        /* The key signs: the seed corpus holds this token. */
        if (!jwt || !(good = proto_jwt_issue(jwt, "alice", 1000, 3600,
                                             &error)))
            abort();
        free(good);
    }
    if (proto_jwt_verify(jwt, token, 2000, &user, NULL, &error) == 0) {
        /* Only the issued token's user can come out of a valid one. */
        FUZZ_ASSERT(user && !strcmp(user, "alice"));
        free(user);
    }
    free(token);
    return 0;
}
