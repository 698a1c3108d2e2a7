/* raw_client.h: a raw TCP client to the server under test on 127.0.0.1, for the tests that write
 * exact bytes on the wire (framing, pipelining, silent connections). Include after cmocka.h. */
#ifndef DAGSCHED_TESTS_RAW_CLIENT_H
#define DAGSCHED_TESTS_RAW_CLIENT_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/socket.h>

/* A connected socket to port on the loopback address, Nagle off (the test fails otherwise). */
static inline int connect_lo(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    int one = 1;
    assert_int_equal(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one), 0);
    return fd;
}

#endif
