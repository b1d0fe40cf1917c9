"""Prints how many consumers each named RabbitMQ queue has (-1: no such queue) as one JSON object.

An RPC server (nova-conductor, octavia-worker, ...) is ready once its queue has a consumer: a cast sent before that
is dropped, since oslo.messaging declares a topic's queue on the consuming side only.

    python rpc_consumers.py <amqp url> <queue>...
"""

import json
import sys

import kombu


def consumers(connection, queue):
    channel = connection.channel()
    try:
        # A passive declare never creates the queue; it fails (and closes the channel) when it does not exist.
        return channel.queue_declare(queue=queue, passive=True).consumer_count
    except connection.channel_errors:
        return -1
    finally:
        try:
            channel.close()
        except connection.connection_errors + connection.channel_errors:
            pass


def main():
    url, queues = sys.argv[1], sys.argv[2:]
    with kombu.Connection(url, connect_timeout=5) as connection:
        connection.connect()
        print(json.dumps({queue: consumers(connection, queue) for queue in queues}))


if __name__ == "__main__":
    main()
