/* SPDX-License-Identifier: Apache-2.0
 *
 * token.h - auth/jwt in the controller: checking tokens, `scontrol token`
 *
 * With AuthAltTypes=auth/jwt the controller loads the HS256 key named by
 * AuthAltParameters=jwt_key= (default StateSaveLocation/jwt_hs256.key)
 * and accepts requests whose credential is a token it signed
 * (proto/jwt_auth.h): droverrestd passes its clients' tokens on, and commands
 * send SLURM_JWT.  The token's user ("sun") is the sender, resolved to a
 * uid through the ident cache; a token never carries the daemon role.
 */
#ifndef DROVER_CTLD_TOKEN_H
#define DROVER_CTLD_TOKEN_H

#include "common/error.h"
#include "proto/server.h"

struct ctld;

/* Load the key and install the token verifier on ctld->auth when
 * auth/jwt is configured; nothing otherwise.  Returns 0, or -1 with
 * 'error' naming the key file and the fault (the daemon stops: Slurm's
 * slurmctld does not start without its key either). */
int token_init(struct ctld *ctld, drv_error_t *error);

/* Free what token_init() made.  NULL-safe on a ctld without auth/jwt. */
void token_fini(struct ctld *ctld);

/* token_issue (schema_msgs.c). */
extern const struct proto_handler rpc_token_handlers[];

#endif /* !DROVER_CTLD_TOKEN_H */
