"""``mqlab admin`` run in-process against a simulated cluster, for the admin command tests."""

from __future__ import annotations

import io
import json
from typing import Any

from mqlab.cli import build_parser
from mqlab.tools.command.mq_admin_startup import run_sub_command


class AdminCli:
    """Mixin for a test world with a ``cluster`` (a simulated ``ConsumerCluster``): run admin commands on it."""

    cluster: Any

    def admin(self, *argv: str) -> tuple[int, str, str]:
        """``mqlab admin <argv>`` on a new client node of the simulation; (exit code, stdout, stderr)."""
        args = build_parser().parse_args(["admin", argv[0], "-n", self.cluster.namesrv_addr, *argv[1:]])
        out, err = io.StringIO(), io.StringIO()
        code = run_sub_command(args, runtime=self.cluster.client_runtime(), out=out, err=err)
        return code, out.getvalue(), err.getvalue()

    def admin_json(self, *argv: str) -> Any:
        """The command's ``--json`` output, parsed (it must succeed)."""
        code, out, err = self.admin(*argv, "--json")
        assert code == 0, err
        return json.loads(out)
