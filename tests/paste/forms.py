#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A kernel log as people paste it (issue 41): reads a log on stdin and
writes it in one FORM on stdout.  Only the lines that start with the
kernel's "[    0.123456] " take a form's prefix or wrapping; the others (a
fixture's "# excerpt" notes, a record's further lines, another form's
lines) pass as they are, or as the form would print them.

  forms.py FORM < dmesg.txt > pasted.txt     forms.py --list
"""
import json
import re
import sys

STAMP = re.compile(r"^\[ *(\d+)\.(\d+)\] ")
SUBSYS = re.compile(r"^([A-Za-z0-9_.-]+: )")
DATE = "May 04 12:22:28"


def stamped(fn):
    """Applies fn(stamp, text) to the lines that start with a stamp."""
    def form(lines):
        out = []
        for line in lines:
            m = STAMP.match(line)
            out.append(fn(m.group(0), line[m.end():], m) if m else line)
        return out
    return form


def color(stamp, text, _m):
    # util-linux dmesg --color=always: the time green, the subsystem brown.
    s = SUBSYS.match(text)
    if s:
        text = "\x1b[33m" + s.group(1) + "\x1b[0m" + text[s.end():]
    return "\x1b[32m" + stamp + "\x1b[0m" + text


def unstamp(lines):
    return stamped(lambda st, text, m: text)(lines)


def fold80(lines):
    out = []
    for line in lines:
        while len(line) > 80:
            out.append(line[:80])
            line = line[80:]
        out.append(line)
    return out


def interleaved(lines):
    out = []
    for i, line in enumerate(journal(lines)):
        out.append(line)
        if i % 3 == 0:
            out.append(f"{DATE} host systemd[1]: Started session-{i}.scope - Session {i}.")
        if i % 5 == 0:
            out.append(f"{DATE} host sshd[812]: Accepted publickey for u from 10.0.0.{i % 250}")
    return out


journal = stamped(lambda st, text, m: f"{DATE} host kernel: {text}")


def usec(m):
    return str(int(m.group(1)) * 1000000 + int(m.group(2).ljust(6, "0")[:6]))


def nbsp(lines):
    # A browser's copy: each run of blanks ends in a space, U+00A0 before it.
    return [re.sub(r" {2,}", lambda r: "\u00a0" * (len(r.group(0)) - 1) + " ", line)
            for line in lines]


def serial(lines):
    # A serial console's capture: the screen cleared once, each line
    # erased and started over with a carriage return, CRLF.
    out = ["\x1b[2K\r" + line + "\r" for line in lines]
    if out:
        out[0] = "\x1b[?25l\x1b[H\x1b[2J" + out[0]
    return out


def journal_json(stamp, text, m):
    return json.dumps({"__REALTIME_TIMESTAMP": "1733480101000000", "_TRANSPORT": "kernel",
                       "SYSLOG_IDENTIFIER": "kernel", "_SOURCE_MONOTONIC_TIMESTAMP": usec(m),
                       "PRIORITY": "6", "MESSAGE": text}, ensure_ascii=False)


def docker_json(lines):
    return [json.dumps({"log": line + "\n", "stream": "stdout",
                        "time": "2024-12-06T10:15:01.123456789Z"}, ensure_ascii=False)
            for line in lines]


def human(lines):
    out, first = [], True
    for line in lines:
        m = STAMP.match(line)
        if m:
            out.append(("[Dec 6 10:15] " if first else "[  +0.002991] ") + line[m.end():])
            first = False
        else:
            out.append(line)
    return out


def glued(head, tail):
    """head glued to the first stamped line (a log's banner, where the
    fixture's notes come before it), tail to the last."""
    def form(lines):
        out = list(lines)
        stamped_at = [i for i, line in enumerate(out) if STAMP.match(line)]
        if stamped_at:
            out[stamped_at[0]] = head + out[stamped_at[0]]
            out[stamped_at[-1]] = out[stamped_at[-1]] + tail
        return out
    return form
def newest_first(lines):
    """journalctl -r: the records newest first, each record's further lines
    still after it; the lines before the first record (a fixture's notes)
    stay first."""
    starts = [i for i, line in enumerate(lines) if STAMP.match(line)]
    if not starts:
        return list(lines)
    groups = [lines[a:b] for a, b in zip(starts, starts[1:] + [len(lines)])]
    return lines[:starts[0]] + [line for g in reversed(groups) for line in g]


def rfc5424(line, m):
    """An RFC 5424 record of a log line: the kernel's, its stamp kept
    (rsyslog's RSYSLOG_SyslogProtocol23Format)."""
    frac = m.group(2).ljust(6, "0")[:6] if m else "000000"
    return f"<6>1 2024-12-06T10:15:01.{frac}+00:00 host kernel - - - {line}"


def syslog_stream(lines):
    """RFC 5424 records pasted as one stream, without newlines; the lines
    before the first stamped one (a fixture's notes) stay lines."""
    starts = [i for i, line in enumerate(lines) if STAMP.match(line)]
    if not starts:
        return list(lines)
    return lines[:starts[0]] + ["".join(rfc5424(line, STAMP.match(line))
                                        for line in lines[starts[0]:] if line)]


FORMS = {
    # Section 1 of issue 41.
    "color": stamped(color),
    "short-monotonic": stamped(lambda st, text, m: f"{st}host kernel: {text}"),
    "foreign-prefix": stamped(lambda st, text, m: f"[10:25:44.788][Moby][Info] {st}{text}"),
    "bbcode": stamped(lambda st, text, m:
                      f"[COLOR=#000000][FONT=arial]{st}{text}[/FONT][/COLOR]"),
    "html": stamped(lambda st, text, m: f'<span style="color:#000000">{st}{text}</span><br>'),
    "stamp-spaces": stamped(lambda st, text, m: f"[ {m.group(1)}.{m.group(2)} ] {text}"),
    "indented-unstamped": lambda lines: [" " + line for line in unstamp(lines)],
    # The forms read before it.
    "journal": journal,
    "short-precise": stamped(lambda st, text, m: f"{DATE}.{m.group(2)} host kernel: {text}"),
    "crlf": lambda lines: [line + "\r" for line in lines],
    "unstamped": unstamp,
    "fold80": fold80,
    "interleaved": interleaved,
    # Issue 49: the forms found after issue 41, read by the normalizer.
    "iso": stamped(lambda st, text, m:
                   f"2024-12-06T10:15:01,{m.group(2).ljust(6, '0')[:6]}+01:00 {text}"),
    "delta": stamped(lambda st, text, m:
                     f"[{int(m.group(1)):5d}.{m.group(2)} <    0.000902>] {text}"),
    "human": human,
    "json": stamped(journal_json),
    "short-full": stamped(lambda st, text, m: f"Tue 2024-12-06 10:15:01 UTC host kernel: {text}"),
    "time-only": stamped(lambda st, text, m: f"14:46:57 kernel: {text}"),
    "kubectl": stamped(lambda st, text, m: f"2024-12-06T10:15:01.123456789Z {st}{text}"),
    "loki": stamped(lambda st, text, m:
                    f'2024-12-06T10:15:01Z {{host="ip-10-0-0-1", job="varlogs"}} {st}{text}'),
    "docker-json": docker_json,
    "cat-n": lambda lines: [f"{i + 1:6d}\t{line}" for i, line in enumerate(lines)],
    "nbsp": nbsp,
    "serial": serial,
    "bom": glued("\ufeff", ""),
    "noformat": glued("{noformat}", "{noformat}"),
    "ec2-console": stamped(lambda st, text, m: f"i-0123456789abcdef0\t{st}{text}"),
    "stamp-pad-dots": stamped(lambda st, text, m: f"[{int(m.group(1)):5d}.{m.group(2)} ]  {text}"),
    # Issue 49's leftovers: a pastebin's line numbers.
    "pastebin-colon": lambda lines: [f"{i + 1}:" + (" " + line if line else "")
                                     for i, line in enumerate(lines)],
    "pastebin-bar": lambda lines: [f"{i + 1:4d} |" + (" " + line if line else "")
                                   for i, line in enumerate(lines)],
    "numbered-tab": lambda lines: [f"{i + 1}\t{line}" for i, line in enumerate(lines)],
    # journalctl -r -o short-monotonic, and -o json: the newest record first.
    "reverse": lambda lines: newest_first(
        stamped(lambda st, text, m: f"{st}host kernel: {text}")(lines)),
    "reverse-json": lambda lines: stamped(journal_json)(newest_first(lines)),
    # RFC 5424 syslog, a record a line, and as one stream without newlines.
    "rfc5424": stamped(lambda st, text, m: rfc5424(st + text, m)),
    "rfc5424-stream": syslog_stream,
}

def unquoted(lines):
    """A quoted log (its first stamped line indented) as it was before the
    quote: each form is applied to the log itself."""
    for line in lines:
        m = re.match(r"^([ \t]+)\[ *\d+\.\d+\]", line)
        if m:
            q = m.group(1)
            return [line[len(q):] if line.startswith(q) else line for line in lines]
        if STAMP.match(line):
            break
    return lines


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        print("\n".join(FORMS))
        sys.exit(0)
    if len(sys.argv) != 2 or sys.argv[1] not in FORMS:
        sys.exit(f"usage: {sys.argv[0]} FORM|--list (forms: {' '.join(FORMS)})")
    data = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    lines = data.split("\n")
    last = lines.pop() if lines and lines[-1] == "" else None
    out = "\n".join(FORMS[sys.argv[1]](unquoted(lines))) + ("\n" if last is not None else "")
    sys.stdout.buffer.write(out.encode("utf-8", "surrogateescape"))
