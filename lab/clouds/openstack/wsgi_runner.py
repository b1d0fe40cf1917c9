"""Serves one OpenStack WSGI application on 127.0.0.1 with gunicorn, for the lab OpenStack.

The 2026.2 services ship WSGI applications only (keystone.wsgi.api, nova.wsgi.osapi_compute, ...), each of which reads
its configuration files from OS_<SERVICE>_CONFIG_FILES / OS_<SERVICE>_CONFIG_DIR when imported. oslo.config also
parses sys.argv at that moment, so the runner empties argv before gunicorn's worker imports the module: gunicorn's
own command line would otherwise be taken for the service's options.

    python wsgi_runner.py <module>[:<attribute>] <port> [<service argument>...]

The attribute defaults to `application`; the service arguments become the service's argv (octavia's API reads its
--config-file there, having no environment variable for it). One worker process (the service's state, caches included, lives in one
place) with a few threads, so a service can answer while it waits on another (nova-api on neutron on keystone).
"""

import importlib
import sys

from gunicorn.app.base import BaseApplication


class Runner(BaseApplication):
    def __init__(self, target, port):
        self.target = target
        self.options = {
            "bind": f"127.0.0.1:{port}",
            "workers": 1,
            "worker_class": "gthread",
            "threads": 4,
            # Service start-up (imports, policy loading) is slow on a loaded machine; a long request is a slow
            # service, not a hung worker.
            "timeout": 600,
            "graceful_timeout": 5,
            # Longer than clients keep idle connections (Node's fetch: 4 s), so a client never sends a request on
            # a connection the server is closing at that moment.
            "keepalive": 75,
            "accesslog": "-",
            "errorlog": "-",
            "loglevel": "info",
        }
        super().__init__()

    def load_config(self):
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        module_name, _, attribute = self.target.partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, attribute or "application")


def main():
    if len(sys.argv) < 3:
        sys.exit(f"usage: {sys.argv[0]} <module>[:<attribute>] <port> [<service argument>...]")
    target, port = sys.argv[1], int(sys.argv[2])
    sys.argv = sys.argv[:1] + sys.argv[3:]
    Runner(target, port).run()


if __name__ == "__main__":
    main()
