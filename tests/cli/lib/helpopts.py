"""What `dipmap help CMD` says of each option, for the tests that compare helps (081, 082)."""
import re
import subprocess

_helps = {}


def commands(dipmap):
    """The commands `dipmap help` lists, but help itself."""
    text = subprocess.run([dipmap, "help"], capture_output=True, text=True, check=True).stdout
    return [c for c in re.findall(r"^   ([a-z][a-z-]*)\s", text, re.M) if c != "help"]


def options(dipmap, cmd, group=None):
    """{option name: its help text, continuation lines joined} of CMD (of one GROUP heading)."""
    if cmd not in _helps:
        _helps[cmd] = subprocess.run([dipmap, "help", cmd], capture_output=True, text=True,
                                     check=True).stdout
    text = _helps[cmd]
    if group:
        start = text.index(group + "\n")
        text = text[start:text.index("\n\n", start)]
    out, name = {}, None
    for line in text.split("\n"):
        m = re.match(r"^\s+(?:-\w, )?--(?:\[no-\])?([a-z0-9-]+)(?: \S+)?\s+(.*)$", line)
        if m:
            name = m.group(1)
            out[name] = m.group(2)
        elif name and line.startswith("                              "):
            out[name] += " " + line.strip()
    return out


def default(h):
    """The default an option's help states ("(default X)" or "; default X"), or None."""
    m = re.search(r"[(;] ?default ([^;),]*)", h)
    return m.group(1).strip() if m else None
