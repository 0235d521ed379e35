"""(Re)create data_samples/opencode/: hand-made OpenCode logs in OpenCode's own on-disk formats.

Run:  .venv/bin/python tools/make_opencode_samples.py

The folder stands for OpenCode's data directory ($XDG_DATA_HOME/opencode, i.e. ~/.local/share/opencode):

    opencode.db        SQLite, WAL journal mode, the schema of OpenCode v1.18.3 (fresh install)
    storage/           the legacy (pre-SQLite, <= v1.1.x) JSON tree: project/ session/ message/ part/

Everything is deterministic: ids are built the way OpenCode builds them (prefix + 12 hex digits of
timestamp*0x1000+counter, bit-inverted for session ids, + 14 base62 characters, here drawn from fixed
seeds), times are fixed (2026-03, UTC, epoch milliseconds). The JSON files are byte-identical on every
run; the .db file's bytes may vary with the SQLite version, its content does not.

Formats, with the OpenCode source each one was read from, are documented in
docs/harnesses/opencode.md; data_samples/opencode/README.md says what each session covers.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sqlite3
import struct
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data_samples" / "opencode"
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# ----------------------------------------------------------------------------------------------- schema
# Verbatim (leading indentation removed) from sst/opencode v1.18.3
# (tag commit 127bdb30784d508cc556c71a0f32b508a3061517) packages/core/src/database/schema.gen.ts: the
# statements a fresh v1.18.3 install runs on an empty database (DatabaseMigration.apply).

SCHEMA = [
    """CREATE TABLE `workspace` (
  `id` text PRIMARY KEY,
  `type` text NOT NULL,
  `name` text DEFAULT '' NOT NULL,
  `branch` text,
  `directory` text,
  `extra` text,
  `project_id` text NOT NULL,
  `time_used` integer NOT NULL,
  CONSTRAINT `fk_workspace_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `data_migration` (
  `name` text PRIMARY KEY,
  `time_completed` integer NOT NULL
);""",
    """CREATE TABLE `account_state` (
  `id` integer PRIMARY KEY,
  `active_account_id` text,
  `active_org_id` text,
  CONSTRAINT `fk_account_state_active_account_id_account_id_fk` FOREIGN KEY (`active_account_id`) REFERENCES `account`(`id`) ON DELETE SET NULL
);""",  # noqa: E501
    """CREATE TABLE `account` (
  `id` text PRIMARY KEY,
  `email` text NOT NULL,
  `url` text NOT NULL,
  `access_token` text NOT NULL,
  `refresh_token` text NOT NULL,
  `token_expiry` integer,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL
);""",
    """CREATE TABLE `control_account` (
  `email` text NOT NULL,
  `url` text NOT NULL,
  `access_token` text NOT NULL,
  `refresh_token` text NOT NULL,
  `token_expiry` integer,
  `active` integer NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  CONSTRAINT `control_account_pk` PRIMARY KEY(`email`, `url`)
);""",
    """CREATE TABLE `credential` (
  `id` text PRIMARY KEY,
  `integration_id` text,
  `label` text NOT NULL,
  `value` text NOT NULL,
  `connector_id` text,
  `method_id` text,
  `active` integer,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL
);""",
    """CREATE TABLE `event_sequence` (
  `aggregate_id` text PRIMARY KEY,
  `seq` integer NOT NULL,
  `owner_id` text
);""",
    """CREATE TABLE `event` (
  `id` text PRIMARY KEY,
  `aggregate_id` text NOT NULL,
  `seq` integer NOT NULL,
  `type` text NOT NULL,
  `data` text NOT NULL,
  CONSTRAINT `fk_event_aggregate_id_event_sequence_aggregate_id_fk` FOREIGN KEY (`aggregate_id`) REFERENCES `event_sequence`(`aggregate_id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `permission` (
  `id` text PRIMARY KEY,
  `project_id` text NOT NULL,
  `action` text NOT NULL,
  `resource` text NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  CONSTRAINT `fk_permission_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `project_directory` (
  `project_id` text NOT NULL,
  `directory` text NOT NULL,
  `type` text,
  `strategy` text,
  `time_created` integer NOT NULL,
  CONSTRAINT `project_directory_pk` PRIMARY KEY(`project_id`, `directory`),
  CONSTRAINT `fk_project_directory_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `project` (
  `id` text PRIMARY KEY,
  `worktree` text NOT NULL,
  `vcs` text,
  `name` text,
  `icon_url` text,
  `icon_url_override` text,
  `icon_color` text,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `time_initialized` integer,
  `sandboxes` text NOT NULL,
  `commands` text
);""",
    """CREATE TABLE `message` (
  `id` text PRIMARY KEY,
  `session_id` text NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `data` text NOT NULL,
  CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `part` (
  `id` text PRIMARY KEY,
  `message_id` text NOT NULL,
  `session_id` text NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `data` text NOT NULL,
  CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE
);""",
    """CREATE TABLE `session_context_epoch` (
  `session_id` text PRIMARY KEY,
  `baseline` text NOT NULL,
  `snapshot` text NOT NULL,
  `baseline_seq` integer NOT NULL,
  CONSTRAINT `fk_session_context_epoch_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `session_input` (
  `id` text PRIMARY KEY,
  `session_id` text NOT NULL,
  `prompt` text NOT NULL,
  `delivery` text NOT NULL,
  `admitted_seq` integer NOT NULL,
  `promoted_seq` integer,
  `time_created` integer NOT NULL,
  CONSTRAINT `fk_session_input_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `session_message` (
  `id` text PRIMARY KEY,
  `session_id` text NOT NULL,
  `type` text NOT NULL,
  `seq` integer NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `data` text NOT NULL,
  CONSTRAINT `fk_session_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `session` (
  `id` text PRIMARY KEY,
  `project_id` text NOT NULL,
  `workspace_id` text,
  `parent_id` text,
  `slug` text NOT NULL,
  `directory` text NOT NULL,
  `path` text,
  `title` text NOT NULL,
  `version` text NOT NULL,
  `share_url` text,
  `summary_additions` integer,
  `summary_deletions` integer,
  `summary_files` integer,
  `summary_diffs` text,
  `metadata` text,
  `cost` real DEFAULT 0 NOT NULL,
  `tokens_input` integer DEFAULT 0 NOT NULL,
  `tokens_output` integer DEFAULT 0 NOT NULL,
  `tokens_reasoning` integer DEFAULT 0 NOT NULL,
  `tokens_cache_read` integer DEFAULT 0 NOT NULL,
  `tokens_cache_write` integer DEFAULT 0 NOT NULL,
  `revert` text,
  `permission` text,
  `agent` text,
  `model` text,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  `time_compacting` integer,
  `time_archived` integer,
  CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    """CREATE TABLE `todo` (
  `session_id` text NOT NULL,
  `content` text NOT NULL,
  `status` text NOT NULL,
  `priority` text NOT NULL,
  `position` integer NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`),
  CONSTRAINT `fk_todo_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);""",
    """CREATE TABLE `session_share` (
  `session_id` text PRIMARY KEY,
  `id` text NOT NULL,
  `secret` text NOT NULL,
  `url` text NOT NULL,
  `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL,
  CONSTRAINT `fk_session_share_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE
);""",  # noqa: E501
    "CREATE UNIQUE INDEX `event_aggregate_seq_idx` ON `event` (`aggregate_id`,`seq`);",
    "CREATE INDEX `event_aggregate_type_seq_idx` ON `event` (`aggregate_id`,`type`,`seq`);",
    "CREATE UNIQUE INDEX `permission_project_action_resource_idx` ON `permission` (`project_id`,`action`,`resource`);",
    "CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);",
    "CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);",
    "CREATE INDEX `part_session_idx` ON `part` (`session_id`);",
    "CREATE INDEX `session_input_session_pending_delivery_seq_idx` ON `session_input` "
    "(`session_id`,`promoted_seq`,`delivery`,`admitted_seq`);",
    "CREATE UNIQUE INDEX `session_input_session_admitted_seq_idx` ON `session_input` (`session_id`,`admitted_seq`);",
    "CREATE UNIQUE INDEX `session_input_session_promoted_seq_idx` ON `session_input` (`session_id`,`promoted_seq`);",
    "CREATE UNIQUE INDEX `session_message_session_seq_idx` ON `session_message` (`session_id`,`seq`);",
    "CREATE INDEX `session_message_session_type_seq_idx` ON `session_message` (`session_id`,`type`,`seq`);",
    "CREATE INDEX `session_message_session_time_created_id_idx` ON `session_message` "
    "(`session_id`,`time_created`,`id`);",
    "CREATE INDEX `session_message_time_created_idx` ON `session_message` (`time_created`);",
    "CREATE INDEX `session_project_idx` ON `session` (`project_id`);",
    "CREATE INDEX `session_workspace_idx` ON `session` (`workspace_id`);",
    "CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);",
    "CREATE INDEX `todo_session_idx` ON `todo` (`session_id`);",
]

# packages/core/src/database/migration.ts (v1.18.3): after schema.up, the journal table is created with
# drizzle's sql.identifier("migration") (double-quoted in SQLite) and one row per migration id.
MIGRATION_TABLE = 'CREATE TABLE "migration" (id TEXT PRIMARY KEY, time_completed INTEGER NOT NULL)'
MIGRATION_IDS = [  # packages/core/src/database/migration.gen.ts, v1.18.3, in order
    "20260127222353_familiar_lady_ursula",
    "20260211171708_add_project_commands",
    "20260213144116_wakeful_the_professor",
    "20260225215848_workspace",
    "20260227213759_add_session_workspace_id",
    "20260228203230_blue_harpoon",
    "20260303231226_add_workspace_fields",
    "20260309230000_move_org_to_state",
    "20260312043431_session_message_cursor",
    "20260323234822_events",
    "20260410174513_workspace-name",
    "20260413175956_chief_energizer",
    "20260423070820_add_icon_url_override",
    "20260427172553_slow_nightmare",
    "20260428004200_add_session_path",
    "20260501142318_next_venus",
    "20260504145000_add_sync_owner",
    "20260507164347_add_workspace_time",
    "20260510033149_session_usage",
    "20260511000411_data_migration_state",
    "20260511173437_session-metadata",
    "20260601010001_normalize_storage_paths",
    "20260601202201_amazing_prowler",
    "20260602002951_lowly_union_jack",
    "20260602182828_add_project_directories",
    "20260603001617_session_message_projection_indexes",
    "20260603040000_session_message_projection_order",
    "20260603141458_session_input_inbox",
    "20260603160727_jittery_ezekiel_stane",
    "20260604172448_event_sourced_session_input",
    "20260605003541_add_session_context_snapshot",
    "20260605042240_add_context_epoch_agent",
    "20260611035744_credential",
    "20260611192811_lush_chimera",
    "20260612174303_project_dir_strategy",
    "20260622142730_simplify_session_context_epoch",
    "20260622170816_reset_v2_session_state",
    "20260622202450_simplify_session_input",
]

# ------------------------------------------------------------------------------ deterministic ids / time


def _h(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest()


def rand62(seed: str, n: int) -> str:
    out, i = "", 0
    while len(out) < n:
        out += "".join(B62[b % 62] for b in _h(f"{seed}:{i}"))  # same byte % 62 mapping OpenCode uses
        i += 1
    return out[:n]


def hex40(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


def t(day: int, hms: str) -> int:
    """Epoch ms of 2026-03-<day>T<hh:mm:ss.mmm>Z."""
    hh, mm, rest = hms.split(":")
    ss, ms = rest.split(".")
    dt = datetime(2026, 3, day, int(hh), int(mm), int(ss), int(ms) * 1000, tzinfo=UTC)
    return int(dt.timestamp() * 1000)


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


class Ids:
    """packages/schema/src/identifier.ts: create(descending, timestamp). Module-level counter per ms."""

    def __init__(self) -> None:
        self.last = 0
        self.counter = 0

    def make(self, prefix: str, ms: int, seed: str, descending: bool = False) -> str:
        if ms != self.last:
            self.last, self.counter = ms, 0
        self.counter += 1
        value = ms * 0x1000 + self.counter
        if descending:
            value = ~value  # BigInt ~ : two's complement, only the low 48 bits are kept below
        body = format(value & 0xFFFFFFFFFFFF, "012x")
        return f"{prefix}_{body}{rand62(prefix + seed, 14)}"


IDS = Ids()


def png_data_url(seed: str, w: int = 12, h: int = 6) -> str:
    """A small valid RGB PNG as a data: URL (deterministic pixels)."""
    raw = b""
    pix = _h(seed) * 8
    for y in range(h):
        raw += b"\x00" + bytes(pix[(y * w * 3) % 200 : (y * w * 3) % 200 + w * 3])

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    return "data:image/png;base64," + base64.b64encode(png).decode()


# --------------------------------------------------------------------------------------------- model


@dataclass
class Part:
    obj: dict[str, Any]  # full part as OpenCode holds it in memory: id, sessionID, messageID, type, ...
    created: int  # part.time_created (first write)
    updated: int  # part.time_updated (last write)


@dataclass
class Message:
    obj: dict[str, Any]  # full message: id, sessionID, role, time, ...
    updated: int  # message.time_updated (last write)
    parts: list[Part] = field(default_factory=list)


@dataclass
class Project:
    id: str
    worktree: str
    vcs: str | None
    created: int
    updated: int
    initialized: int | None = None


@dataclass
class Session:
    key: str  # short name used in the README
    id: str
    project: Project
    slug: str
    directory: str
    title: str
    version: str
    created: int
    updated: int
    parent: str | None = None
    permission: list[dict[str, str]] | None = None
    summary: tuple[int, int, int] | None = None  # additions, deletions, files
    messages: list[Message] = field(default_factory=list)


TOKENS0 = {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}


def tokens(inp: int, out: int, reasoning: int = 0, read: int = 0, write: int = 0) -> dict[str, Any]:
    return {"input": inp, "output": out, "reasoning": reasoning, "cache": {"read": read, "write": write}}


class Conv:
    """Builds one session's messages/parts in OpenCode's key order (the zod/Effect schema order)."""

    def __init__(self, s: Session, provider: str = "anthropic", model: str = "claude-sonnet-4-5", agent: str = "build"):
        self.s = s
        self.provider = provider
        self.model = model
        self.agent = agent
        self.n = 0

    def _seed(self) -> str:
        self.n += 1
        return f"{self.s.key}:{self.n}"

    def _part(self, msg: Message, ms: int, body: dict[str, Any], updated: int | None = None) -> Part:
        pid = IDS.make("prt", ms, self._seed())
        part = Part({"id": pid, "sessionID": self.s.id, "messageID": msg.obj["id"], **body}, ms, updated or ms)
        msg.parts.append(part)
        return part

    # -- user
    def user(self, ms: int, *, summary: list[dict[str, Any]] | None = None, agent: str | None = None) -> Message:
        mid = IDS.make("msg", ms, self._seed())
        obj: dict[str, Any] = {"id": mid, "sessionID": self.s.id, "role": "user", "time": {"created": ms}}
        if summary is not None:
            obj["summary"] = {"diffs": summary}
        obj["agent"] = agent or self.agent
        obj["model"] = {"providerID": self.provider, "modelID": self.model}
        msg = Message(obj, ms)
        self.s.messages.append(msg)
        return msg

    def text(self, msg: Message, ms: int, text: str, *, synthetic: bool = False, timed: bool = False) -> Part:
        body: dict[str, Any] = {"type": "text", "text": text}
        if synthetic:
            body["synthetic"] = True
        if timed:
            body["time"] = {"start": ms, "end": ms}
        return self._part(msg, ms, body)

    def file(self, msg: Message, ms: int, mime: str, filename: str, url: str, source: dict[str, Any]) -> Part:
        return self._part(msg, ms, {"type": "file", "mime": mime, "filename": filename, "url": url, "source": source})

    def compaction(self, msg: Message, ms: int, auto: bool) -> Part:
        return self._part(msg, ms, {"type": "compaction", "auto": auto})

    # -- assistant
    def assistant(
        self,
        ms: int,
        parent: Message,
        *,
        agent: str | None = None,
        summary: bool = False,
        root: str | None = None,
    ) -> Message:
        mid = IDS.make("msg", ms, self._seed())
        ag = agent or self.agent
        obj: dict[str, Any] = {
            "id": mid,
            "sessionID": self.s.id,
            "role": "assistant",
            "time": {"created": ms},
            "parentID": parent.obj["id"],
            "modelID": self.model,
            "providerID": self.provider,
            "mode": ag,
            "agent": ag,
            "path": {"cwd": self.s.directory, "root": root or self.s.project.worktree},
        }
        if summary:
            obj["summary"] = True
        obj["cost"] = 0
        obj["tokens"] = json.loads(json.dumps(TOKENS0))
        msg = Message(obj, ms)
        self.s.messages.append(msg)
        return msg

    def step_start(self, msg: Message, ms: int) -> Part:
        return self._part(msg, ms, {"type": "step-start", "snapshot": hex40(f"snap:{self.s.key}:{ms}")})

    def reasoning(self, msg: Message, start: int, end: int, text: str) -> Part:
        return self._part(msg, start, {"type": "reasoning", "text": text, "time": {"start": start, "end": end}}, end)

    def say(self, msg: Message, start: int, end: int, text: str) -> Part:
        return self._part(msg, start, {"type": "text", "text": text, "time": {"start": start, "end": end}}, end)

    def tool(
        self,
        msg: Message,
        start: int,
        end: int | None,
        tool: str,
        inp: dict[str, Any],
        *,
        output: str = "",
        title: str = "",
        metadata: dict[str, Any] | None = None,
        status: str = "completed",
    ) -> Part:
        call = "toolu_01" + rand62(f"call:{self.s.key}:{start}", 22)
        if status == "completed":
            assert end is not None
            state: dict[str, Any] = {
                "status": "completed",
                "input": inp,
                "output": output,
                "title": title,
                "metadata": metadata or {},
                "time": {"start": start, "end": end},
            }
        elif status == "running":
            state = {"status": "running", "input": inp, "metadata": metadata or {}, "time": {"start": start}}
        else:
            raise ValueError(status)
        # the part is created at tool-input-start, a little before the tool starts running
        return self._part(
            msg, start - 40, {"type": "tool", "callID": call, "tool": tool, "state": state}, end or start
        )

    def step_finish(
        self, msg: Message, ms: int, reason: str, cost: float, tok: dict[str, Any], *, finish_message: bool = True
    ) -> Part:
        part = self._part(
            msg,
            ms,
            {
                "type": "step-finish",
                "reason": reason,
                "snapshot": hex40(f"snap:{self.s.key}:{ms}:end"),
                "cost": cost,
                "tokens": tok,
            },
        )
        if finish_message:
            msg.obj["cost"] = round(msg.obj["cost"] + cost, 6)
            msg.obj["tokens"] = tok
            msg.obj["finish"] = reason
        return part

    def complete(self, msg: Message, ms: int) -> None:
        msg.obj["time"]["completed"] = ms
        msg.updated = ms


def bash_meta(output: str, exit_code: int | None, description: str) -> dict[str, Any]:
    """v1.2.x bash tool metadata (packages/opencode/src/tool/bash.ts): output, exit, description."""
    return {"output": output, "exit": exit_code, "description": description}


def filediff(file: str, before: str, after: str, status: str = "modified") -> dict[str, Any]:
    b, a = before.splitlines(), after.splitlines()
    adds = sum(1 for x in a if x not in b)
    dels = sum(1 for x in b if x not in a)
    return {"file": file, "before": before, "after": after, "additions": adds, "deletions": dels, "status": status}


def edit_meta(path: str, before: str, after: str) -> dict[str, Any]:
    diff = (
        f"Index: {path}\n===================================================================\n"
        f"--- {path}\n+++ {path}\n"
        + "".join(f"-{x}\n" for x in before.splitlines() if x not in after.splitlines())
        + "".join(f"+{x}\n" for x in after.splitlines() if x not in before.splitlines())
    )
    return {"diagnostics": {}, "diff": diff, "filediff": filediff(path, before, after)}


# ------------------------------------------------------------------------------------------- projects

GULL = Project(hex40("gull-api root commit"), "/home/dev/src/gull-api", "git", t(9, "16:19:58.310"),
               t(19, "11:30:10.000"))
TERN = Project(hex40("tern-web root commit"), "/home/dev/src/tern-web", "git", t(11, "19:30:40.002"),
               t(23, "13:02:30.115"))
GLOBAL = Project("global", "/", None, t(20, "07:41:09.400"), t(20, "07:41:09.400"))
IMPORT_TIME = t(10, "08:03:12.457")  # first start of v1.2.24: the one-time JSON -> SQLite import ran here


def new_session(key: str, project: Project, directory: str, title: str | None, version: str, created: int, **kw: Any):
    sid = IDS.make("ses", created, key, descending=True)
    slug = ["brave", "calm", "clever", "cosmic", "crisp", "curious", "eager", "gentle"][_h(key)[0] % 8] + "-"
    slug += ["cabin", "comet", "falcon", "harbor", "lagoon", "nebula", "otter", "river"][_h(key)[1] % 8]
    return Session(key, sid, project, slug, directory, title or f"New session - {iso(created)}", version, created,
                   created, **kw)


# ------------------------------------------------------------------------------------------- sessions


def s_imported() -> tuple[Session, int]:
    """Written as JSON by v1.1.65 on 03-09, imported into the db on 03-10, then continued in the db.
    Returns the session and the number of messages that exist in the JSON tree (the first turn)."""
    s = new_session("imported", GULL, GULL.worktree, "Add request timeout to the client", "1.1.65",
                    t(9, "16:20:05.004"))
    c = Conv(s)
    before = "def make_client(base_url):\n    return httpx.Client(base_url=base_url)\n"
    after = (
        "def make_client(base_url, timeout: float = 30.0):\n"
        "    return httpx.Client(base_url=base_url, timeout=timeout)\n"
    )
    u1 = c.user(t(9, "16:20:05.100"), summary=[filediff("gull/client.py", before, after)])
    c.text(u1, t(9, "16:20:05.100"), "Requests in gull/client.py can hang forever when the upstream stalls. "
           "Add a default 30 s timeout and let callers override it.")
    u1.updated = t(9, "16:20:31.950")
    a1 = c.assistant(t(9, "16:20:07.310"), u1)
    c.step_start(a1, t(9, "16:20:09.020"))
    c.say(a1, t(9, "16:20:09.100"), t(9, "16:20:10.870"), "I'll look at how the client is built first.")
    c.tool(a1, t(9, "16:20:11.030"), t(9, "16:20:11.090"), "read",
           {"filePath": "/home/dev/src/gull-api/gull/client.py"},
           output="<file>\n00001| import httpx\n00002| \n00003| \n00004| def make_client(base_url):\n"
           "00005|     return httpx.Client(base_url=base_url)\n\n(End of file - total 5 lines)\n</file>",
           title="gull/client.py", metadata={"preview": "import httpx\n\n\ndef make_client(base_url):"})
    c.step_finish(a1, t(9, "16:20:31.880"), "tool-calls", 0.011874, tokens(9120, 142, 0, 0, 9108))
    c.complete(a1, t(9, "16:20:31.902"))
    a2 = c.assistant(t(9, "16:20:32.050"), u1)
    c.step_start(a2, t(9, "16:20:33.400"))
    c.tool(a2, t(9, "16:20:33.500"), t(9, "16:20:33.610"), "edit",
           {"filePath": "/home/dev/src/gull-api/gull/client.py", "oldString": before.rstrip("\n"),
            "newString": after.rstrip("\n")},
           output="Edit applied successfully.", title="gull/client.py",
           metadata=edit_meta("/home/dev/src/gull-api/gull/client.py", before, after))
    c.say(a2, t(9, "16:20:55.002"), t(9, "16:20:58.300"),
          "`make_client` now takes `timeout: float = 30.0` and passes it to `httpx.Client`; "
          "callers can override it per client.")
    c.step_finish(a2, t(9, "16:20:58.420"), "stop", 0.009512, tokens(9410, 233, 0, 9120, 290))
    c.complete(a2, t(9, "16:20:58.441"))
    s.summary = (2, 2, 1)
    s.updated = t(9, "16:20:58.441")
    in_json = len(s.messages)

    # --- continued in the db after the import (v1.2.24)
    tb = "def test_make_client():\n    assert make_client('http://x').base_url == 'http://x'\n"
    ta = tb + (
        "\n\ndef test_timeout_passed_to_httpx():\n    assert make_client('http://x', timeout=5).timeout.read == 5\n"
    )
    u2 = c.user(t(10, "08:05:11.220"), summary=[filediff("tests/test_client.py", tb, ta)])
    c.text(u2, t(10, "08:05:11.220"), "Also add a test that the timeout is passed through to httpx.")
    u2.updated = t(10, "08:05:40.150")
    a3 = c.assistant(t(10, "08:05:13.002"), u2)
    c.step_start(a3, t(10, "08:05:14.800"))
    c.tool(a3, t(10, "08:05:15.010"), t(10, "08:05:15.130"), "edit",
           {"filePath": "/home/dev/src/gull-api/tests/test_client.py", "oldString": tb.rstrip("\n"),
            "newString": ta.rstrip("\n")},
           output="Edit applied successfully.", title="tests/test_client.py",
           metadata=edit_meta("/home/dev/src/gull-api/tests/test_client.py", tb, ta))
    out = "............                                                             [100%]\n12 passed in 0.41s\n"
    c.tool(a3, t(10, "08:05:15.300"), t(10, "08:05:39.870"), "bash",
           {"command": "pytest tests/test_client.py -q", "description": "Run the client tests"},
           output=out, title="Run the client tests", metadata=bash_meta(out, 0, "Run the client tests"))
    c.step_finish(a3, t(10, "08:05:40.080"), "tool-calls", 0.012204, tokens(10102, 298, 0, 9410, 692))
    c.complete(a3, t(10, "08:05:40.118"))
    a4 = c.assistant(t(10, "08:05:40.300"), u2)
    c.step_start(a4, t(10, "08:05:41.900"))
    c.say(a4, t(10, "08:05:42.010"), t(10, "08:05:47.800"),
          "Added `test_timeout_passed_to_httpx`; the client suite passes (12 passed).")
    c.step_finish(a4, t(10, "08:05:47.930"), "stop", 0.004120, tokens(10480, 41, 0, 10102, 378))
    c.complete(a4, t(10, "08:05:47.950"))
    s.summary = (4, 2, 2)
    s.updated = t(10, "08:05:47.950")
    return s, in_json


def s_legacy_only() -> Session:
    """Written as JSON only by v1.1.65 on 03-11, after the db already existed (see README)."""
    s = new_session("legacy-only", TERN, TERN.worktree, "Bump vite to 6.2", "1.1.65", t(11, "19:30:44.870"))
    c = Conv(s)
    u1 = c.user(t(11, "19:30:45.002"), summary=[])
    c.text(u1, t(11, "19:30:45.002"), "Is vite out of date? If so bump it to the latest 6.2.x and make sure the "
           "build still works.")
    u1.updated = t(11, "19:31:02.600")
    a1 = c.assistant(t(11, "19:30:47.118"), u1)
    c.step_start(a1, t(11, "19:30:48.500"))
    out1 = "Package  Current  Wanted  Latest  Location           Depended by\nvite       6.0.7   6.0.7   6.2.4  node_modules/vite  tern-web\n"  # noqa: E501
    c.tool(a1, t(11, "19:30:48.700"), t(11, "19:31:02.380"), "bash",
           {"command": "npm outdated vite", "description": "Check whether vite is outdated"},
           output=out1, title="Check whether vite is outdated",
           metadata=bash_meta(out1, 1, "Check whether vite is outdated"))
    c.step_finish(a1, t(11, "19:31:02.510"), "tool-calls", 0.008871, tokens(8840, 96, 0, 0, 8820))
    c.complete(a1, t(11, "19:31:02.530"))
    a2 = c.assistant(t(11, "19:31:02.700"), u1)
    c.step_start(a2, t(11, "19:31:04.020"))
    out2 = ("\nadded 0 packages, changed 3 packages in 4s\n\n> tern-web@0.9.0 build\n> vite build\n\n"
            "vite v6.2.4 building for production...\n✓ 412 modules transformed.\n✓ built in 2.87s\n")
    c.tool(a2, t(11, "19:31:04.200"), t(11, "19:31:44.610"), "bash",
           {"command": "npm install vite@~6.2.0 && npm run build", "description": "Install vite 6.2 and build"},
           output=out2, title="Install vite 6.2 and build", metadata=bash_meta(out2, 0, "Install vite 6.2 and build"))
    c.say(a2, t(11, "19:31:45.020"), t(11, "19:31:48.900"),
          "vite was at 6.0.7 (npm outdated exits 1 when something is outdated); it is now 6.2.4 and "
          "`npm run build` succeeds.")
    c.step_finish(a2, t(11, "19:31:48.990"), "stop", 0.010240, tokens(9310, 188, 0, 8840, 470))
    c.complete(a2, t(11, "19:31:49.004"))
    s.updated = t(11, "19:31:49.004")
    return s


def s_normal() -> Session:
    s = new_session("normal", GULL, GULL.worktree, "Fix flaky retry test in the HTTP client", "1.2.25",
                    t(12, "09:14:02.118"))
    c = Conv(s)
    before = ("def test_backoff():\n    start = time.monotonic()\n    retry(fail_twice, delays=[0.01, 0.02])\n"
              "    assert time.monotonic() - start < 0.05\n")
    after = ("def test_backoff(fake_clock):\n    retry(fail_twice, delays=[0.01, 0.02], sleep=fake_clock.sleep)\n"
             "    assert fake_clock.slept == [0.01, 0.02]\n")
    u1 = c.user(t(12, "09:14:02.240"), summary=[filediff("tests/test_retry.py", before, after)])
    c.text(u1, t(12, "09:14:02.240"),
           "tests/test_retry.py::test_backoff fails about one run in five. Find out why and fix it.")
    u1.updated = t(12, "09:14:19.950")
    # step 1: try to reproduce -> pytest usage error, exit code 2
    a1 = c.assistant(t(12, "09:14:04.015"), u1)
    c.step_start(a1, t(12, "09:14:05.700"))
    c.reasoning(a1, t(12, "09:14:05.760"), t(12, "09:14:07.400"),
                "A test that fails one run in five is usually timing-dependent. Reproduce it first by running "
                "it several times.")
    c.say(a1, t(12, "09:14:07.450"), t(12, "09:14:08.100"), "Let me run it a few times to reproduce.")
    out1 = ("ERROR: usage: pytest [options] [file_or_dir] [file_or_dir] [...]\n"
            "pytest: error: unrecognized arguments: --count=10\n"
            "  inifile: /home/dev/src/gull-api/pyproject.toml\n  rootdir: /home/dev/src/gull-api\n")
    c.tool(a1, t(12, "09:14:08.300"), t(12, "09:14:19.700"), "bash",
           {"command": "pytest tests/test_retry.py -k backoff --count=10 -q",
            "description": "Run the backoff test ten times"},
           output=out1, title="Run the backoff test ten times",
           metadata=bash_meta(out1, 2, "Run the backoff test ten times"))
    c.step_finish(a1, t(12, "09:14:19.860"), "tool-calls", 0.013590, tokens(10480, 201, 64, 0, 10440))
    c.complete(a1, t(12, "09:14:19.880"))
    # step 2: read the test
    a2 = c.assistant(t(12, "09:14:20.100"), u1)
    c.step_start(a2, t(12, "09:14:21.300"))
    c.reasoning(a2, t(12, "09:14:21.350"), t(12, "09:14:22.900"),
                "pytest-repeat is not installed, so --count is unknown. Read the test instead.")
    c.tool(a2, t(12, "09:14:23.000"), t(12, "09:14:23.060"), "read",
           {"filePath": "/home/dev/src/gull-api/tests/test_retry.py"},
           output="<file>\n" + "".join(f"{i + 1:05d}| {x}\n" for i, x in enumerate(before.splitlines()))
           + "\n(End of file - total 4 lines)\n</file>",
           title="tests/test_retry.py", metadata={"preview": before.rstrip("\n")})
    c.step_finish(a2, t(12, "09:14:28.950"), "tool-calls", 0.006320, tokens(10790, 118, 40, 10480, 310))
    c.complete(a2, t(12, "09:14:29.004"))
    # step 3: fix + loop the test in the shell -> exit code 0
    a3 = c.assistant(t(12, "09:14:29.200"), u1)
    c.step_start(a3, t(12, "09:14:30.500"))
    c.tool(a3, t(12, "09:14:30.600"), t(12, "09:14:30.720"), "edit",
           {"filePath": "/home/dev/src/gull-api/tests/test_retry.py", "oldString": before.rstrip("\n"),
            "newString": after.rstrip("\n")},
           output="Edit applied successfully.", title="tests/test_retry.py",
           metadata=edit_meta("/home/dev/src/gull-api/tests/test_retry.py", before, after))
    out3 = "".join(f"1 passed, 7 deselected in 0.0{3 + i % 3}s\n" for i in range(10))
    c.tool(a3, t(12, "09:14:31.000"), t(12, "09:14:58.500"), "bash",
           {"command": "for i in $(seq 10); do pytest tests/test_retry.py -k backoff -q || break; done",
            "description": "Run the backoff test ten times in a loop"},
           output=out3, title="Run the backoff test ten times in a loop",
           metadata=bash_meta(out3, 0, "Run the backoff test ten times in a loop"))
    c.step_finish(a3, t(12, "09:14:58.740"), "tool-calls", 0.014402, tokens(11260, 352, 0, 10790, 470))
    c.complete(a3, t(12, "09:14:58.771"))
    # step 4: final answer
    a4 = c.assistant(t(12, "09:14:59.020"), u1)
    c.step_start(a4, t(12, "09:15:00.300"))
    c.say(a4, t(12, "09:15:00.350"), t(12, "09:15:06.200"),
          "The test measured real elapsed time with `time.monotonic()`, so a busy CI runner pushed it over the "
          "50 ms budget. It now injects a `fake_clock` fixture and asserts the requested delays instead; "
          "10 of 10 runs pass.")
    c.step_finish(a4, t(12, "09:15:06.370"), "stop", 0.005610, tokens(11640, 96, 0, 11260, 380))
    c.complete(a4, t(12, "09:15:06.390"))
    # turn 2
    cb = "## Unreleased\n\n### Fixed\n"
    ca = cb + "- Flaky `test_backoff`: the retry test no longer depends on wall-clock time.\n"
    u2 = c.user(t(12, "09:21:40.512"), summary=[filediff("CHANGELOG.md", cb, ca)])
    c.text(u2, t(12, "09:21:40.512"), "Thanks. Add a line to CHANGELOG.md under Unreleased.")
    u2.updated = t(12, "09:21:55.700")
    a5 = c.assistant(t(12, "09:21:42.001"), u2)
    c.step_start(a5, t(12, "09:21:43.400"))
    c.tool(a5, t(12, "09:21:43.500"), t(12, "09:21:43.580"), "edit",
           {"filePath": "/home/dev/src/gull-api/CHANGELOG.md", "oldString": cb.rstrip("\n"),
            "newString": ca.rstrip("\n")},
           output="Edit applied successfully.", title="CHANGELOG.md",
           metadata=edit_meta("/home/dev/src/gull-api/CHANGELOG.md", cb, ca))
    c.step_finish(a5, t(12, "09:21:55.610"), "tool-calls", 0.004980, tokens(11900, 88, 0, 11640, 260))
    c.complete(a5, t(12, "09:21:55.640"))
    a6 = c.assistant(t(12, "09:21:55.800"), u2)
    c.step_start(a6, t(12, "09:21:57.000"))
    c.say(a6, t(12, "09:21:57.050"), t(12, "09:21:59.000"), "Added under **Unreleased → Fixed** in CHANGELOG.md.")
    c.step_finish(a6, t(12, "09:21:59.080"), "stop", 0.003870, tokens(12010, 19, 0, 11900, 110))
    c.complete(a6, t(12, "09:21:59.102"))
    s.summary = (4, 3, 2)
    s.updated = t(12, "09:21:59.102")
    return s


def s_attach() -> Session:
    s = new_session("attach", TERN, TERN.worktree, "Match header spacing to the design mockup", "1.2.26",
                    t(13, "14:02:40.511"))
    c = Conv(s)
    before = ".header {\n  padding: 8px 16px;\n  gap: 12px;\n}\n"
    after = ".header {\n  padding: 24px 32px;\n  gap: 32px;\n}\n"
    u1 = c.user(t(13, "14:02:40.700"), summary=[filediff("src/components/Header.css", before, after)])
    prompt = ("Our header is too cramped compared to this mockup. Match the padding and the gap between the logo "
              "and the nav. @docs/mockup-header.png")
    mention = "@docs/mockup-header.png"
    c.text(u1, t(13, "14:02:40.700"), prompt)
    c.text(u1, t(13, "14:02:40.700"),
           "Called the Read tool with the following input: "
           '{"filePath":"/home/dev/src/tern-web/docs/mockup-header.png"}',
           synthetic=True)
    start = prompt.index(mention)
    c.file(u1, t(13, "14:02:40.700"), "image/png", "docs/mockup-header.png", png_data_url("mockup-header"),
           {"text": {"value": mention, "start": start, "end": start + len(mention)}, "type": "file",
            "path": "docs/mockup-header.png"})
    u1.updated = t(13, "14:03:05.950")
    a1 = c.assistant(t(13, "14:02:43.118"), u1)
    c.step_start(a1, t(13, "14:02:45.010"))
    c.reasoning(a1, t(13, "14:02:45.050"), t(13, "14:02:49.300"),
                "The mockup shows roughly 24px vertical / 32px horizontal padding and a 32px gap between the "
                "logo and the nav. Check the current CSS.")
    c.tool(a1, t(13, "14:02:49.400"), t(13, "14:02:49.450"), "read",
           {"filePath": "/home/dev/src/tern-web/src/components/Header.css"},
           output="<file>\n" + "".join(f"{i + 1:05d}| {x}\n" for i, x in enumerate(before.splitlines()))
           + "\n(End of file - total 4 lines)\n</file>",
           title="src/components/Header.css", metadata={"preview": before.rstrip("\n")})
    c.tool(a1, t(13, "14:03:05.200"), t(13, "14:03:05.290"), "edit",
           {"filePath": "/home/dev/src/tern-web/src/components/Header.css", "oldString": before.rstrip("\n"),
            "newString": after.rstrip("\n")},
           output="Edit applied successfully.", title="src/components/Header.css",
           metadata=edit_meta("/home/dev/src/tern-web/src/components/Header.css", before, after))
    c.step_finish(a1, t(13, "14:03:05.850"), "tool-calls", 0.021870, tokens(12904, 402, 88, 0, 12880))
    c.complete(a1, t(13, "14:03:05.877"))
    a2 = c.assistant(t(13, "14:03:06.020"), u1)
    c.step_start(a2, t(13, "14:03:07.200"))
    c.say(a2, t(13, "14:03:07.250"), t(13, "14:03:11.500"),
          "Set the header padding to `24px 32px` and the logo–nav gap to `32px`, matching the mockup.")
    c.step_finish(a2, t(13, "14:03:11.580"), "stop", 0.004410, tokens(13420, 37, 0, 12904, 516))
    c.complete(a2, t(13, "14:03:11.600"))
    s.summary = (2, 2, 1)
    s.updated = t(13, "14:03:11.600")
    return s


def s_compact() -> Session:
    s = new_session("compact", GULL, GULL.worktree, "Port config loader to pydantic v2", "1.2.27",
                    t(16, "10:05:12.301"))
    c = Conv(s)
    before = "class Settings(BaseModel):\n    @validator('port')\n    def check_port(cls, v):\n        return v\n"
    after = ("class Settings(BaseModel):\n    @field_validator('port')\n    @classmethod\n"
             "    def check_port(cls, v):\n        return v\n")
    u1 = c.user(t(16, "10:05:12.420"), summary=[filediff("gull/config.py", before, after)])
    c.text(u1, t(16, "10:05:12.420"), "Port gull/config.py from pydantic v1 to v2. Keep the public API the same.")
    u1.updated = t(16, "10:06:20.100")
    a1 = c.assistant(t(16, "10:05:14.003"), u1)
    c.step_start(a1, t(16, "10:05:15.900"))
    c.reasoning(a1, t(16, "10:05:15.950"), t(16, "10:05:21.000"),
                "v2 renames validator to field_validator (a classmethod) and parse_obj to model_validate.")
    c.tool(a1, t(16, "10:05:21.100"), t(16, "10:05:21.200"), "edit",
           {"filePath": "/home/dev/src/gull-api/gull/config.py", "oldString": before.rstrip("\n"),
            "newString": after.rstrip("\n")},
           output="Edit applied successfully.", title="gull/config.py",
           metadata=edit_meta("/home/dev/src/gull-api/gull/config.py", before, after))
    out = "........                                                                 [100%]\n8 passed in 0.22s\n"
    c.tool(a1, t(16, "10:05:21.400"), t(16, "10:06:19.900"), "bash",
           {"command": "pytest -q tests/test_config.py", "description": "Run the config tests"},
           output=out, title="Run the config tests", metadata=bash_meta(out, 0, "Run the config tests"))
    c.step_finish(a1, t(16, "10:06:20.050"), "tool-calls", 0.031050, tokens(24800, 610, 120, 0, 24760))
    c.complete(a1, t(16, "10:06:20.080"))
    a2 = c.assistant(t(16, "10:06:20.300"), u1)
    c.step_start(a2, t(16, "10:06:22.000"))
    c.say(a2, t(16, "10:06:22.050"), t(16, "10:06:40.100"),
          "Ported: `validator` → `field_validator` (+ `@classmethod`), `parse_obj` → `model_validate`. "
          "The public `load_settings()` signature is unchanged and the 8 config tests pass.")
    c.step_finish(a2, t(16, "10:06:40.190"), "stop", 0.007320, tokens(25530, 61, 0, 24800, 730))
    c.complete(a2, t(16, "10:06:40.210"))
    # manual /compact: a user message whose only part is a compaction part ...
    u2 = c.user(t(16, "10:12:03.118"))
    c.compaction(u2, t(16, "10:12:03.118"), auto=False)
    # ... then the summary, an assistant message with summary: true (mode/agent "compaction")
    a3 = c.assistant(t(16, "10:12:03.300"), u2, agent="compaction", summary=True)
    c.step_start(a3, t(16, "10:12:05.000"))
    c.say(a3, t(16, "10:12:05.050"), t(16, "10:12:19.700"),
          "## Summary\n\n- Goal: port `gull/config.py` from pydantic v1 to v2 without changing the public API.\n"
          "- Done: validators migrated to `field_validator`, `parse_obj` → `model_validate`; "
          "`tests/test_config.py` passes (8 tests).\n- Files touched: `gull/config.py`.\n- Next: none requested yet.")
    c.step_finish(a3, t(16, "10:12:19.850"), "stop", 0.018930, tokens(25600, 540, 0, 0, 0))
    c.complete(a3, t(16, "10:12:19.870"))
    # turn 2, which overflows and is auto-compacted mid-turn
    db = "## Loading settings\n\nCall `Settings.parse_obj(data)`.\n"
    da = "## Loading settings\n\nCall `Settings.model_validate(data)` (pydantic v2).\n"
    u3 = c.user(t(16, "10:14:30.555"), summary=[filediff("docs/configuration.md", db, da)])
    c.text(u3, t(16, "10:14:30.555"), "Now update docs/configuration.md for the v2 loader.")
    u3.updated = t(16, "10:15:10.350")
    a4 = c.assistant(t(16, "10:14:32.010"), u3)
    c.step_start(a4, t(16, "10:14:33.800"))
    c.tool(a4, t(16, "10:14:33.900"), t(16, "10:14:33.990"), "read",
           {"filePath": "/home/dev/src/gull-api/docs/configuration.md"},
           output="<file>\n00001| ## Loading settings\n00002| \n00003| Call `Settings.parse_obj(data)`.\n\n"
           "(End of file - total 3 lines)\n</file>",
           title="docs/configuration.md", metadata={"preview": db.rstrip("\n")})
    c.tool(a4, t(16, "10:15:09.800"), t(16, "10:15:09.900"), "edit",
           {"filePath": "/home/dev/src/gull-api/docs/configuration.md", "oldString": db.rstrip("\n"),
            "newString": da.rstrip("\n")},
           output="Edit applied successfully.", title="docs/configuration.md",
           metadata=edit_meta("/home/dev/src/gull-api/docs/configuration.md", db, da))
    c.step_finish(a4, t(16, "10:15:10.250"), "tool-calls", 0.142800, tokens(181200, 402, 0, 0, 181100))
    c.complete(a4, t(16, "10:15:10.300"))
    u4 = c.user(t(16, "10:15:10.420"))
    c.compaction(u4, t(16, "10:15:10.420"), auto=True)
    a5 = c.assistant(t(16, "10:15:10.600"), u4, agent="compaction", summary=True)
    c.step_start(a5, t(16, "10:15:12.100"))
    c.say(a5, t(16, "10:15:12.150"), t(16, "10:15:30.900"),
          "## Summary\n\n- pydantic v2 port of `gull/config.py` is done and tested.\n"
          "- Current task: update `docs/configuration.md` for the v2 loader; the `parse_obj` example was "
          "replaced with `model_validate`.\n- Next: check the rest of the page for v1-only wording.")
    c.step_finish(a5, t(16, "10:15:30.980"), "stop", 0.061200, tokens(181500, 610, 0, 0, 0))
    c.complete(a5, t(16, "10:15:31.004"))
    u5 = c.user(t(16, "10:15:31.150"))
    c.text(u5, t(16, "10:15:31.150"),
           "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed.",
           synthetic=True, timed=True)
    a6 = c.assistant(t(16, "10:15:31.300"), u5)
    c.step_start(a6, t(16, "10:15:33.000"))
    c.say(a6, t(16, "10:15:33.050"), t(16, "10:15:40.700"),
          "docs/configuration.md now shows `Settings.model_validate(data)`; nothing else on the page was "
          "specific to pydantic v1.")
    c.step_finish(a6, t(16, "10:15:40.860"), "stop", 0.006900, tokens(3120, 44, 0, 0, 3100))
    c.complete(a6, t(16, "10:15:40.880"))
    s.summary = (3, 2, 2)
    s.updated = t(16, "10:15:40.880")
    return s


def s_task() -> tuple[Session, Session]:
    parent = new_session("task-parent", TERN, TERN.worktree, "Audit hard-coded UI strings", "1.2.27",
                         t(17, "15:40:00.250"))
    c = Conv(parent)
    u1 = c.user(t(17, "15:40:00.400"), summary=[])
    c.text(u1, t(17, "15:40:00.400"),
           "Find every hard-coded user-facing string in src/components so we can move them to the i18n catalog.")
    u1.updated = t(17, "15:41:30.700")
    a1 = c.assistant(t(17, "15:40:02.100"), u1)
    c.step_start(a1, t(17, "15:40:03.500"))
    c.say(a1, t(17, "15:40:03.550"), t(17, "15:40:03.900"), "I'll have the explore agent do the search.")

    # the task tool creates the child session while it runs
    child = new_session("task-child", TERN, TERN.worktree, "Find hard-coded UI strings (@explore subagent)",
                        "1.2.27", t(17, "15:40:04.050"), parent=parent.id,
                        permission=[{"permission": "todowrite", "pattern": "*", "action": "deny"},
                                    {"permission": "todoread", "pattern": "*", "action": "deny"},
                                    {"permission": "task", "pattern": "*", "action": "deny"}])
    k = Conv(child, agent="explore")
    task_prompt = ("List every hard-coded user-facing string literal in /home/dev/src/tern-web/src/components "
                   "(JSX text and aria-label/title/placeholder attributes). Give file:line and the string.")
    cu = k.user(t(17, "15:40:04.200"), summary=[])
    k.text(cu, t(17, "15:40:04.200"), task_prompt)
    cu.updated = t(17, "15:40:20.400")
    ca1 = k.assistant(t(17, "15:40:05.900"), cu)
    k.step_start(ca1, t(17, "15:40:07.100"))
    g1 = ("Found 5 matches\n/home/dev/src/tern-web/src/components/Header.tsx:\n  Line 14:       <a href=\"/login\">Sign in</a>\n"  # noqa: E501
          "  Line 22:       <span>Welcome back</span>\n\n/home/dev/src/tern-web/src/components/Footer.tsx:\n"
          "  Line 9:     <p>All rights reserved</p>\n\n/home/dev/src/tern-web/src/components/EmptyState.tsx:\n"
          "  Line 6:     <h2>Nothing here yet</h2>\n  Line 7:     <p>Create your first project to get started</p>")
    k.tool(ca1, t(17, "15:40:07.200"), t(17, "15:40:07.310"), "grep",
           {"pattern": ">[A-Z][a-z][^<{]*<", "path": "/home/dev/src/tern-web/src/components", "include": "*.tsx"},
           output=g1, title=">[A-Z][a-z][^<{]*<", metadata={"matches": 5, "truncated": False})
    g2 = ("Found 2 matches\n/home/dev/src/tern-web/src/components/Search.tsx:\n"
          "  Line 11:       placeholder=\"Search projects\"\n  Line 12:       aria-label=\"Search\"")
    k.tool(ca1, t(17, "15:40:07.400"), t(17, "15:40:07.480"), "grep",
           {"pattern": "(aria-label|title|placeholder)=\"[A-Za-z]", "path": "/home/dev/src/tern-web/src/components",
            "include": "*.tsx"},
           output=g2, title="(aria-label|title|placeholder)=\"[A-Za-z]", metadata={"matches": 2, "truncated": False})
    k.step_finish(ca1, t(17, "15:40:20.300"), "tool-calls", 0.002140, tokens(6120, 180, 0, 0, 6100))
    k.complete(ca1, t(17, "15:40:20.331"))
    ca2 = k.assistant(t(17, "15:40:20.500"), cu)
    k.step_start(ca2, t(17, "15:40:22.000"))
    result = ("7 hard-coded strings in 4 components:\n- Header.tsx:14 `Sign in`\n- Header.tsx:22 `Welcome back`\n"
              "- Footer.tsx:9 `All rights reserved`\n- EmptyState.tsx:6 `Nothing here yet`\n"
              "- EmptyState.tsx:7 `Create your first project to get started`\n"
              "- Search.tsx:11 placeholder `Search projects`\n- Search.tsx:12 aria-label `Search`")
    k.say(ca2, t(17, "15:40:22.050"), t(17, "15:41:29.900"), result)
    k.step_finish(ca2, t(17, "15:41:29.960"), "stop", 0.001870, tokens(6900, 150, 0, 6120, 780))
    k.complete(ca2, t(17, "15:41:29.980"))
    child.updated = t(17, "15:41:29.980")

    out = (f"task_id: {child.id} (for resuming to continue this task if needed)\n\n<task_result>\n{result}\n"
           "</task_result>")
    c.tool(a1, t(17, "15:40:04.010"), t(17, "15:41:30.400"), "task",
           {"description": "Find hard-coded UI strings", "prompt": task_prompt, "subagent_type": "explore"},
           output=out, title="Find hard-coded UI strings",
           metadata={"sessionId": child.id, "model": {"modelID": "claude-sonnet-4-5", "providerID": "anthropic"}})
    c.step_finish(a1, t(17, "15:41:30.600"), "tool-calls", 0.012030, tokens(9840, 190, 0, 0, 9800))
    c.complete(a1, t(17, "15:41:30.640"))
    a2 = c.assistant(t(17, "15:41:30.800"), u1)
    c.step_start(a2, t(17, "15:41:32.200"))
    c.say(a2, t(17, "15:41:32.250"), t(17, "15:41:44.000"),
          "Found 7 hard-coded strings in 4 components (Header, Footer, EmptyState, Search). The two in "
          "Search.tsx are attributes (`placeholder`, `aria-label`), the rest are JSX text. Want me to move them "
          "into `src/i18n/en.json`?")
    c.step_finish(a2, t(17, "15:41:44.100"), "stop", 0.004580, tokens(10310, 71, 0, 9840, 470))
    c.complete(a2, t(17, "15:41:44.120"))
    parent.updated = t(17, "15:41:44.120")
    return parent, child


def s_abort() -> Session:
    s = new_session("abort", GULL, GULL.worktree, "Speed up CI dependency cache", "1.2.27", t(19, "11:30:10.020"))
    c = Conv(s)
    u1 = c.user(t(19, "11:30:10.200"), summary=[])
    c.text(u1, t(19, "11:30:10.200"), "CI spends 3 minutes restoring the pip cache. Try building the wheels "
           "locally first to see how long a cold install takes.")
    u1.updated = t(19, "11:31:55.500")
    a1 = c.assistant(t(19, "11:30:12.001"), u1)
    c.step_start(a1, t(19, "11:30:13.700"))
    c.reasoning(a1, t(19, "11:30:13.750"), t(19, "11:30:14.200"),
                "Build all wheels into a temp dir and time it.")
    partial = ("Collecting httpx==0.28.1\n  Downloading httpx-0.28.1-py3-none-any.whl (73 kB)\n"
               "Collecting pydantic==2.10.4\n  Downloading pydantic-2.10.4-py3-none-any.whl (431 kB)\n")
    c.tool(a1, t(19, "11:30:14.330"), None, "bash",
           {"command": "pip wheel -r requirements.txt -w /tmp/wheels",
            "description": "Build wheels for all requirements"},
           metadata={"output": partial, "description": "Build wheels for all requirements"}, status="running")
    a1.obj["time"]["completed"] = t(19, "11:31:55.480")
    a1.obj = {**{k: v for k, v in a1.obj.items() if k in ("id", "sessionID", "role", "time")},
              "error": {"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}},
              **{k: v for k, v in a1.obj.items() if k not in ("id", "sessionID", "role", "time")}}
    a1.updated = t(19, "11:31:55.480")
    u2 = c.user(t(19, "11:32:20.640"), summary=[])
    c.text(u2, t(19, "11:32:20.640"), "Never mind, don't build anything. Just tell me which cache key the "
           "workflow uses.")
    u2.updated = t(19, "11:32:40.100")
    a2 = c.assistant(t(19, "11:32:22.100"), u2)
    c.step_start(a2, t(19, "11:32:23.500"))
    wf = ("      - uses: actions/cache@v4\n        with:\n          path: ~/.cache/pip\n"
          "          key: pip-${{ runner.os }}-${{ hashFiles('requirements*.txt') }}\n")
    c.tool(a2, t(19, "11:32:23.600"), t(19, "11:32:23.680"), "read",
           {"filePath": "/home/dev/src/gull-api/.github/workflows/ci.yml", "offset": 18, "limit": 4},
           output="<file>\n" + "".join(f"{i + 19:05d}| {x}\n" for i, x in enumerate(wf.splitlines()))
           + "\n(File has more lines. Use 'offset' parameter to read beyond line 22)\n</file>",
           title=".github/workflows/ci.yml", metadata={"preview": wf.rstrip("\n")})
    c.step_finish(a2, t(19, "11:32:39.980"), "tool-calls", 0.003950, tokens(8900, 77, 0, 8800, 100))
    c.complete(a2, t(19, "11:32:40.002"))
    a3 = c.assistant(t(19, "11:32:40.200"), u2)
    c.step_start(a3, t(19, "11:32:41.600"))
    c.say(a3, t(19, "11:32:41.650"), t(19, "11:32:46.400"),
          "The cache key is `pip-${{ runner.os }}-${{ hashFiles('requirements*.txt') }}` (actions/cache@v4, "
          "path `~/.cache/pip`), so any change to a requirements file invalidates the whole cache.")
    c.step_finish(a3, t(19, "11:32:46.530"), "stop", 0.002880, tokens(9120, 58, 0, 8900, 220))
    c.complete(a3, t(19, "11:32:46.560"))
    s.updated = t(19, "11:32:46.560")
    return s


def s_placeholder() -> Session:
    s = new_session("placeholder", GLOBAL, "/home/dev/src/notes", None, "1.2.27", t(20, "07:41:09.532"))
    c = Conv(s, provider="opencode", model="big-pickle")
    u1 = c.user(t(20, "07:41:15.004"), summary=[])
    c.text(u1, t(20, "07:41:15.004"), "<system-reminder>\nYour todo list is empty. Use the todowrite tool if the "
           "task has several steps.\n</system-reminder>")
    c.text(u1, t(20, "07:41:15.004"),
           "quick one: what's the difference between `git restore file` and `git checkout -- file`?")
    u1.updated = t(20, "07:41:24.200")
    a1 = c.assistant(t(20, "07:41:16.880"), u1)
    c.step_start(a1, t(20, "07:41:18.000"))
    c.say(a1, t(20, "07:41:18.050"), t(20, "07:41:24.000"),
          "For a single file they do the same thing: discard unstaged changes by copying the file from the index. "
          "`git restore` (Git 2.23+) is the newer, single-purpose command; `git checkout -- file` is the older "
          "form, which shares its name with branch switching. `git restore --staged file` unstages instead.")
    c.step_finish(a1, t(20, "07:41:24.090"), "stop", 0, tokens(2210, 96, 0, 0, 0))
    c.complete(a1, t(20, "07:41:24.113"))
    s.updated = t(20, "07:41:24.113")
    return s


def s_cjk() -> Session:
    s = new_session("cjk", TERN, TERN.worktree, "修复日语环境下的日期格式 📅", "1.3.0", t(23, "13:02:31.777"))
    c = Conv(s)
    before = ("export function formatDate(d: Date, locale: string) {\n"
              "  return new Intl.DateTimeFormat(locale).format(d)\n}\n")
    after = ("export function formatDate(d: Date, locale: string) {\n"
             "  const style = locale.startsWith('ja') ? 'long' : 'medium'\n"
             "  return new Intl.DateTimeFormat(locale, { dateStyle: style }).format(d)\n}\n")
    u1 = c.user(t(23, "13:02:31.900"), summary=[filediff("src/lib/formatDate.ts", before, after)])
    c.text(u1, t(23, "13:02:31.900"),
           "日期在日语环境下显示成了「2026/3/5」。请改成「2026年3月5日」，英文环境保持 “Mar 5, 2026” 不变。")
    u1.updated = t(23, "13:03:02.500")
    a1 = c.assistant(t(23, "13:02:34.010"), u1)
    c.step_start(a1, t(23, "13:02:35.500"))
    c.reasoning(a1, t(23, "13:02:35.550"), t(23, "13:02:40.100"),
                "Intl.DateTimeFormat 的 dateStyle: 'long' 在 ja-JP 下输出「2026年3月5日」，en-US 用 'medium' 得到 "
                "“Mar 5, 2026”。")
    c.tool(a1, t(23, "13:02:40.200"), t(23, "13:02:40.300"), "edit",
           {"filePath": "/home/dev/src/tern-web/src/lib/formatDate.ts", "oldString": before.rstrip("\n"),
            "newString": after.rstrip("\n")},
           output="Edit applied successfully.", title="src/lib/formatDate.ts",
           metadata=edit_meta("/home/dev/src/tern-web/src/lib/formatDate.ts", before, after))
    out = (" ✓ src/lib/formatDate.test.ts (2 tests) 4ms\n   ✓ formats ja-JP as 2026年3月5日\n"
           "   ✓ formats en-US as Mar 5, 2026\n\n Test Files  1 passed (1)\n      Tests  2 passed (2)\n")
    c.tool(a1, t(23, "13:02:40.500"), t(23, "13:03:02.200"), "bash",
           {"command": "npm test -- formatDate", "description": "Run the date formatting tests"},
           output=out, title="Run the date formatting tests",
           metadata=bash_meta(out, 0, "Run the date formatting tests"))
    c.step_finish(a1, t(23, "13:03:02.420"), "tool-calls", 0.017340, tokens(13300, 388, 92, 0, 13260))
    c.complete(a1, t(23, "13:03:02.450"))
    a2 = c.assistant(t(23, "13:03:02.600"), u1)
    c.step_start(a2, t(23, "13:03:04.000"))
    c.say(a2, t(23, "13:03:04.050"), t(23, "13:03:09.000"),
          "已修改 `formatDate`：日语环境现在使用 `dateStyle: \"long\"`，输出「2026年3月5日」；英文环境仍为 "
          "“Mar 5, 2026”。测试全部通过 ✅")
    c.step_finish(a2, t(23, "13:03:09.090"), "stop", 0.003990, tokens(13820, 61, 0, 13300, 520))
    c.complete(a2, t(23, "13:03:09.118"))
    s.summary = (2, 1, 1)
    s.updated = t(23, "13:03:09.118")
    return s


# ---------------------------------------------------------------------------------------------- writers


def compact(obj: Any) -> str:
    """drizzle text({mode:"json"}) stores JSON.stringify(value): no spaces, raw UTF-8."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def pretty(obj: Any) -> str:
    """Legacy Storage.write: JSON.stringify(content, null, 2), no trailing newline."""
    return json.dumps(obj, ensure_ascii=False, indent=2)


def strip(obj: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in keys}


def write_db(path: Path, projects: list[Project], sessions: list[Session], imported: dict[str, int]) -> None:
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("PRAGMA foreign_keys = ON")
    with con:
        for stmt in SCHEMA:
            con.execute(stmt)
        con.execute(MIGRATION_TABLE)
        con.executemany('INSERT INTO "migration" (id, time_completed) VALUES (?, ?)',
                        [(m, IMPORT_TIME) for m in MIGRATION_IDS])
        for p in projects:
            con.execute(
                "INSERT INTO project (id, worktree, vcs, name, icon_url, icon_url_override, icon_color, time_created,"
                " time_updated, time_initialized, sandboxes, commands) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (p.id, p.worktree, p.vcs, None, None, None, None, p.created, p.updated, p.initialized, "[]", None),
            )
        for s in sessions:
            assistants = [m.obj for m in s.messages if m.obj["role"] == "assistant"]
            # columns added later (path, agent, model, metadata, workspace_id) stay NULL for March rows;
            # cost/tokens are what migration 20260510033149_session_usage backfills from the messages
            cost = round(sum(m["cost"] for m in assistants), 6)
            tk = {k: sum(m["tokens"][k] for m in assistants) for k in ("input", "output", "reasoning")}
            cr = sum(m["tokens"]["cache"]["read"] for m in assistants)
            cw = sum(m["tokens"]["cache"]["write"] for m in assistants)
            add, dele, files = s.summary if s.summary else (None, None, None)
            con.execute(
                "INSERT INTO session (id, project_id, workspace_id, parent_id, slug, directory, path, title, version,"
                " share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost,"
                " tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert,"
                " permission, agent, model, time_created, time_updated, time_compacting, time_archived)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (s.id, s.project.id, None, s.parent, s.slug, s.directory, None, s.title, s.version, None, add, dele,
                 files, None, None, cost, tk["input"], tk["output"], tk["reasoning"], cr, cw, None,
                 compact(s.permission) if s.permission else None, None, None, s.created, s.updated, None, None),
            )
            n_imported = imported.get(s.id, 0)
            for i, m in enumerate(s.messages):
                was_imported = i < n_imported
                con.execute(
                    "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?,?,?,?,?)",
                    (m.obj["id"], s.id, m.obj["time"]["created"], IMPORT_TIME if was_imported else m.updated,
                     compact(strip(m.obj, "id", "sessionID"))),
                )
                for p in m.parts:
                    created, updated = (IMPORT_TIME, IMPORT_TIME) if was_imported else (p.created, p.updated)
                    con.execute(
                        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)"
                        " VALUES (?,?,?,?,?,?)",
                        (p.obj["id"], m.obj["id"], s.id, created, updated,
                         compact(strip(p.obj, "id", "sessionID", "messageID"))),
                    )
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def session_file(s: Session, n_messages: int | None = None) -> dict[str, Any]:
    """v1.1.x Session.Info as Session.createNext builds it, plus later updates (time.updated, summary)."""
    obj: dict[str, Any] = {"id": s.id, "slug": s.slug, "version": s.version, "projectID": s.project.id,
                           "directory": s.directory}
    if s.parent:
        obj["parentID"] = s.parent
    obj["title"] = s.title
    if s.permission:
        obj["permission"] = s.permission
    msgs = s.messages if n_messages is None else s.messages[:n_messages]
    obj["time"] = {"created": s.created, "updated": max(m.updated for m in msgs)}
    if s.summary:
        a, d, f = s.summary
        obj["summary"] = {"additions": a, "deletions": d, "files": f}
    return obj


def write_storage(root: Path, projects: list[Project], legacy: list[tuple[Session, int | None, dict[str, int]]]):
    files: list[Path] = []

    def put(rel: str, obj: Any) -> None:
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(pretty(obj).encode())
        files.append(p)

    for p in projects:
        put(f"project/{p.id}.json", {"id": p.id, "worktree": p.worktree, "vcs": p.vcs, "sandboxes": [],
                                     "time": {"created": p.created, "updated": p.updated}})
    for s, n, summary_override in legacy:
        obj = session_file(s, n)
        if summary_override:
            obj["summary"] = summary_override
        put(f"session/{s.project.id}/{s.id}.json", obj)
        for m in s.messages if n is None else s.messages[:n]:
            put(f"message/{s.id}/{m.obj['id']}.json", m.obj)
            for part in m.parts:
                put(f"part/{m.obj['id']}/{part.obj['id']}.json", part.obj)
    # Storage keeps the index of its own last file-layout migration in a plain-text marker (no .json)
    (root / "migration").write_bytes(b"2")
    files.append(root / "migration")
    return files


# ----------------------------------------------------------------------------------------------- README

README_HEAD = """# data_samples/opencode — hand-made OpenCode data (generated)

**Generated** by `tools/make_opencode_samples.py`; edit the script, not this file. Formats and their
sources: `docs/harnesses/opencode.md`.

This folder stands for OpenCode's data directory (`$XDG_DATA_HOME/opencode`, normally
`~/.local/share/opencode`):

- `opencode.db`: SQLite in WAL mode (checkpointed; no `-wal`/`-shm` committed). Schema = OpenCode
  v1.18.3 fresh install (`packages/core/src/database/schema.gen.ts`) plus its `migration` journal.
  Rows in `project`, `session`, `message`, `part`, `migration`; every other table is empty.
- `storage/`: the legacy JSON tree OpenCode <= v1.1.x wrote: `project/<projectID>.json`,
  `session/<projectID>/<sessionID>.json`, `message/<sessionID>/<messageID>.json`,
  `part/<messageID>/<partID>.json`, and the plain-text `migration` marker file.

Story the data tells (it explains the legacy tree): the user ran v1.1.65 until 2026-03-09; on
2026-03-10 08:03:12.457Z v1.2.24 started, found no `opencode.db` and ran the one-time JSON → SQLite
import (which copies and never deletes the JSON tree); on 2026-03-11 they briefly ran v1.1.65 again
(it writes JSON only, and the import never runs again because the db exists); from 2026-03-12 on they
used v1.2.25 … v1.3.0. The db schema, though, is the current one (v1.18.3, as a fresh install
creates it): a database really created in March and upgraded since holds the same columns in another
order (the doc lists it), so read columns by name. The `migration` journal's times are set to the
import time; they mean nothing here.

Payload shapes are those OpenCode wrote in March 2026 (v1.1.65 – v1.3.0): e.g. the bash tool input has
`description`, its `state.title` is that description, and `state.metadata` is `{output, exit,
description}`. (v1.18.3 writes `title` = the command and `metadata` `{output, exit, truncated,
outputPath?}`.)

Conventions: times are epoch milliseconds, all in 2026-03 (UTC). `message.data` = the message minus
`id`/`sessionID`; `part.data` = the part minus `id`/`sessionID`/`messageID`; the JSON files keep those
keys. Rows copied by the import have `message.time_updated`, `part.time_created` and
`part.time_updated` = the import time, not the original times (use `data.time`).

## Reading rules these samples exercise

- **Prompt (turn start)**: a `user` message with at least one `text` part that has neither
  `synthetic: true` nor `ignored: true`, and whose text does not start with `<system-reminder>`. All
  other user content is system context: `synthetic` text (the "Called the Read tool …" line of an
  @-mention, the "Continue if you have next steps …" after an auto-compaction), `file` parts (never
  index the base64), a `compaction` part (a compaction boundary).
- **Compaction**: a user message whose only part is `{"type":"compaction","auto":…}`, followed by an
  assistant message with `"summary": true` (`mode`/`agent` `"compaction"`, `parentID` = that user
  message) whose text is the summary.
- **Tool call**: one `tool` part gives a call (`state.input`) and, when `state.status` is `completed`
  (`state.output`) or `error` (`state.error`), a result; bash exit code = `state.metadata.exit`.
  A part still `running` (or `pending`) has no result.
- **Completion**: an assistant message with `time.completed` and `finish` not in
  {`tool-calls`, `unknown`} ends the turn (`stop` here); one with `error` ends it as aborted/failed.
  `finish: "tool-calls"` means another assistant message follows for the same prompt (`parentID`).
- **Title**: `session.title`, unless it matches
  `^(New session - |Child session - )\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$`; then the
  first prompt.
- **cwd**: `session.directory` (and `path.cwd` of each assistant message). Project `global` has
  worktree `/`; do not use it as the cwd.
- **Sub-agents**: a child has `session.parent_id`; the parent's `task` part has
  `state.metadata.sessionId` = the child id.
- **Dedupe**: a session id present in both the db and `storage/` is one session; prefer the db.
- **Resume**: `opencode <directory> --session <id>` (`-s`), headless `opencode run --session <id> "…"`.

## Sessions
"""


def readme(rows: list[tuple[Session, str, str]], counts: dict[str, Any]) -> str:
    lines = [README_HEAD]
    lines.append("| key | session id | where | title (as stored) | cwd | covers |")
    lines.append("|---|---|---|---|---|---|")
    for s, where, covers in rows:
        lines.append(f"| `{s.key}` | `{s.id}` | {where} | {s.title} | `{s.directory}` | {covers} |")
    lines.append("")
    lines.append(DETAILS)
    lines.append("## Counts\n")
    lines.append(f"- db: {counts['db_sessions']} sessions, {counts['db_messages']} messages, "
                 f"{counts['db_parts']} parts, {counts['db_projects']} projects")
    lines.append(f"- storage/: {counts['json_sessions']} sessions, {counts['json_messages']} messages, "
                 f"{counts['json_parts']} parts, {counts['json_projects']} projects")
    lines.append(f"- distinct sessions after dedupe: {counts['distinct']}")
    lines.append("")
    return "\n".join(lines)


DETAILS = """### What a reader should make of each

- **`normal`** — 2 turns. Turn 1: prompt, then four assistant messages for the same `parentID`
  (`finish` tool-calls ×3, then stop): reasoning, text, bash `pytest … --count=10` **exit 2** (usage
  error), read, edit, bash loop **exit 0**, final text. Turn 2: prompt, edit, text, stop. Both turns
  completed. Every assistant message has step-start / step-finish parts (runtime, not content).
- **`attach`** — 1 turn. The user message has three parts: the genuine prompt (the only prompt text),
  a `synthetic` "Called the Read tool with the following input: …" line, and a `file` part
  (`image/png`, `data:` URL, `source.text` points at the `@docs/mockup-header.png` mention inside the
  prompt). Completed (stop).
- **`compact`** — 2 turns. Turn 1: prompt → edit + bash exit 0 → text, stop. Then a manual `/compact`:
  a user message with only a `compaction` part (`auto: false`) and an assistant summary (`summary:
  true`); these are a compaction, not a turn. Turn 2: prompt → read + edit (`tool-calls`, context
  full) → automatic compaction (`auto: true`) + summary → a user message whose only part is the
  **synthetic** "Continue if you have next steps …" (not a prompt) → final text, stop. Turn 2 is
  completed by that last message.
- **`task-parent`** / **`task-child`** — the parent's single turn calls the `task` tool;
  `state.metadata.sessionId` is the child's id and the output starts with `task_id: <child id>`. The
  child session (`parent_id` = parent, title `… (@explore subagent)`, permission ruleset denying
  todowrite/todoread/task) has one turn whose prompt is the task prompt the parent wrote (user role,
  agent `explore`), two grep calls and the result text. The child's id sorts before the parent's
  (session ids are descending). List only the parent at the top level.
- **`abort`** — 2 turns. Turn 1: the assistant message has `error.name = "MessageAbortedError"`, no
  `finish`, and a bash part stuck in `running` (input and partial `metadata.output`, no exit code, no
  result): the turn ended by interruption; emit the call, no result. (OpenCode's own abort path turns
  unfinished tool parts into `status: "error"`, "Tool execution aborted"; a part left `running` means
  the process died first — an adapter must tolerate both.) Turn 2: prompt → read → text, stop.
- **`placeholder`** — title is the placeholder `New session - 2026-03-20T07:41:09.532Z` (title
  generation never ran), so the title should come from the first prompt. The user message's first
  text part starts with `<system-reminder>` and has **no** synthetic flag (plugin-injected): it is
  system context, and the prompt is the second part ("quick one: …"). Project `global` (worktree `/`),
  cwd `/home/dev/src/notes`. Model `opencode/big-pickle`, cost 0. 1 turn, completed.
- **`cjk`** — Chinese/Japanese text and emoji in the title, prompt, reasoning, tool output and
  answer (raw UTF-8 in the JSON). 1 turn: reasoning, edit, bash exit 0, text, stop.
- **`imported`** — in **both** stores. `storage/` holds turn 1 only (as written by v1.1.65 on 03-09);
  the db holds the imported turn 1 plus turn 2 written on 03-10 after the import (`version` stays
  `1.1.65`, the version that created the session). Dedupe by session id and prefer the db: 2 turns
  (edit, then edit + bash exit 0), both completed; the JSON copy must not add a third turn or
  duplicate turn 1.
- **`legacy-only`** — only in `storage/` (written by v1.1.65 on 03-11, after the db existed). 1 turn:
  bash `npm outdated vite` **exit 1** (not a failure: npm outdated exits 1 when something is
  outdated), then bash exit 0 and text, stop.
"""


def main() -> None:
    global IDS
    IDS = Ids()
    imported, imported_in_json = s_imported()
    legacy_only = s_legacy_only()
    normal = s_normal()
    attach = s_attach()
    compact_s = s_compact()
    parent, child = s_task()
    abort = s_abort()
    placeholder = s_placeholder()
    cjk = s_cjk()

    db_sessions = [imported, normal, attach, compact_s, parent, child, abort, placeholder, cjk]
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    write_db(OUT / "opencode.db", [GULL, TERN, GLOBAL], db_sessions, {imported.id: imported_in_json})
    # the JSON tree: gull-api as v1.1.65 left it on 03-09, tern-web as it left it on 03-11
    gull_json = Project(GULL.id, GULL.worktree, GULL.vcs, GULL.created, t(9, "16:20:05.010"))
    tern_json = Project(TERN.id, TERN.worktree, TERN.vcs, TERN.created, t(11, "19:30:44.800"))
    write_storage(OUT / "storage", [gull_json, tern_json],
                  [(imported, imported_in_json, {"additions": 2, "deletions": 2, "files": 1}),
                   (legacy_only, None, {})])

    rows = [
        (normal, "db", "2 turns; reasoning/text/tool/step parts; bash exit 2 then exit 0; finish stop"),
        (attach, "db", "genuine text + synthetic text + `file` part with a `data:` image URL"),
        (compact_s, "db", "manual compaction (`auto:false`) and auto compaction mid-turn + synthetic continue"),
        (parent, "db", "`task` tool part whose `state.metadata.sessionId` is the child"),
        (child, "db", "child session (`parent_id`), sub-agent title"),
        (abort, "db", "`MessageAbortedError` + bash part stuck in `running`; then a normal turn"),
        (placeholder, "db", "placeholder title; unflagged `<system-reminder>` text; project `global`"),
        (cjk, "db", "CJK + emoji everywhere; real title"),
        (imported, "db **and** storage/", "same id in both: dedupe, prefer the db (2 turns vs 1)"),
        (legacy_only, "storage/ only", "legacy JSON-only session; bash exit 1"),
    ]
    con = sqlite3.connect(f"file:{OUT / 'opencode.db'}?mode=ro", uri=True)
    n = {tbl: con.execute(f"SELECT count(*) FROM {tbl}").fetchone()[0] for tbl in ("session", "message", "part",
                                                                                 "project")}
    journal = con.execute("PRAGMA journal_mode").fetchone()[0]
    con.close()
    st = OUT / "storage"
    counts = {
        "db_sessions": n["session"], "db_messages": n["message"], "db_parts": n["part"], "db_projects": n["project"],
        "json_sessions": len(list(st.glob("session/*/*.json"))),
        "json_messages": len(list(st.glob("message/*/*.json"))),
        "json_parts": len(list(st.glob("part/*/*.json"))),
        "json_projects": len(list(st.glob("project/*.json"))),
        "distinct": len({s.id for s in db_sessions} | {legacy_only.id}),
    }
    (OUT / "README.md").write_text(readme(rows, counts), encoding="utf-8")
    for suffix in ("-wal", "-shm"):
        Path(str(OUT / "opencode.db") + suffix).unlink(missing_ok=True)

    print(f"wrote {OUT.relative_to(ROOT)}/")
    print(f"  opencode.db  journal_mode={journal}  sessions={n['session']} messages={n['message']} "
          f"parts={n['part']} projects={n['project']}")
    print(f"  storage/     sessions={counts['json_sessions']} messages={counts['json_messages']} "
          f"parts={counts['json_parts']} projects={counts['json_projects']}")
    for s, where, covers in rows:
        print(f"  {s.key:<12} {s.id}  [{where.replace('**', '')}]  {covers.replace('`', '')}")


if __name__ == "__main__":
    main()
