/* SPDX-License-Identifier: Apache-2.0
 *
 * drover_isolate.h - `drover up --isolate`: each controller of a Raft
 * group and each droverd in its own network and UTS namespace (its host
 * name the controller's or the node's name; docs/ha.md)
 *
 * Every name is derived from the cluster directory (a 6-hex-digit tag of
 * its path), so `drover down` finds and removes what a crashed run left:
 *   network namespace  drover-TAG-ctlN      (ip netns, /run/netns/)
 *   bridge             drvbr-TAG            (root namespace, 10.77.X.1/24)
 *   veth pair          drvTAGcN (root side, on the bridge) and drvTAGpN
 *                      (in the namespace, 10.77.X.(N+1)/24)
 * X, the subnet's third number, is chosen when the cluster is made (one
 * no interface of this host uses) and kept in etc/isolate.net.
 * Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and iproute2's `ip`.
 */
#ifndef DROVER_ISOLATE_H
#define DROVER_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define DROVER_ISOLATE_REL "etc/isolate.net" /* "10.77.X.0/24\n" */

/* A free 10.77.X.0/24 for a new cluster: X (1..254), starting from one
 * derived from 'dir' and skipping those an interface of this host has an
 * address in (getifaddrs).  Returns X, or -1 with 'error' when all are
 * taken. */
int drover_isolate_pick(const char *dir, drv_error_t *error);

/* X of the cluster in 'dir' from etc/isolate.net; 0 when the cluster is
 * not isolated (no file); -1 with 'error' when the file is malformed. */
int drover_isolate_octet(const char *dir, drv_error_t *error);

/* The network namespace of controller or node 'ctl' ("ctl2", "node01")
 * of the cluster in 'dir': "drover-TAG-ctl2".  Caller frees. */
char *drover_isolate_netns(const char *dir, const char *ctl);

/* Make whatever is missing of the bridge, and of the namespace and veth
 * pair of each of 'names' ('n' of them: the controllers, then the
 * droverd nodes; names[i] gets 10.77.X.(i+2) and veth drvTAGc(i+1));
 * what exists is kept as it is (a veth set down to cut a controller or a
 * node off stays down).  Returns 0, or -1 with 'error' naming the `ip`
 * command that failed and its message. */
int drover_isolate_up(const char *dir, int octet, char *const *names,
                      size_t n, drv_error_t *error);

/* Remove the namespaces, veth pairs and bridge of the cluster in 'dir'
 * that exist (none is fine).  Returns how many things it removed. */
int drover_isolate_down(const char *dir);

/* In a child about to exec: join network namespace 'netns' (a name under
 * /run/netns), enter a new UTS namespace and set the host name to
 * 'hostname'.  Returns 0, or -1 with errno. */
int drover_isolate_enter(const char *netns, const char *hostname);

#endif
