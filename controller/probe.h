/* probe.h: `dagsched-controller probe`, the check run by the Helm chart's test hook (`helm test`):
 * GET each --url (HTTP or HTTPS) and succeed only when every one answers 200. HTTPS is verified
 * against --cacert (else the system's CAs); --connect-to HOST:PORT sends every request there while
 * the URL's host still names the certificate (for tests on loopback, like curl's option of that
 * name). Prints one line per URL: the status and the first line of the body.
 *
 * Exit status: 0 all answered 200, 1 one did not (or could not be reached), 2 bad flags. */
#ifndef DAGSCHED_CONTROLLER_PROBE_H
#define DAGSCHED_CONTROLLER_PROBE_H

/* argv[0] is "probe". */
int ctl_probe_main(int argc, char **argv);

#endif
