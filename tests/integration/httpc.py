# SPDX-License-Identifier: GPL-2.0
# The client side of the --serve tests: a connection to the tool on
# 127.0.0.1, and a whole answer (until the tool closes the connection,
# resets it, or the socket's timeout passes).
import socket


def conn(port, timeout=5):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def answer(s):
    data = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    except (ConnectionResetError, socket.timeout):
        pass
    return data
