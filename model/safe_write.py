"""Writing the files rulespec makes without following symbolic links.

A command writes into folders other people's changes may reach (a clone's `replays/`,
`docs/faq/`, the result cache): a symbolic link planted where a file goes could point at
any file of the user's, existing (overwritten) or not (created). So every file the tool
writes goes through `write_text`, which refuses a link in place of the file, writes the
text to a new temporary file of the same folder (opened with `O_EXCL` and `O_NOFOLLOW`)
and renames it over the target: a reader never sees half a file, and the rename
replaces a name, never a file a link points at. `make_folder` makes an output folder
(the one a command writes its files into) and refuses a link in its place.

`output_file_problem` and `output_folder_problem` say, before any work starts, why a
file or folder named on the command line cannot be written (the CLI's option types use
them). A refusal is a `LinkRefused`, an `OSError`, so that every caller that reports a
file system error reports it the same way.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

#: What a refusal says about a symbolic link.
LINK_REFUSED = "is a symbolic link; rulespec does not write through one (remove it or name another)"
#: The open flags of a temporary file: a new file, never through a link.
_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class LinkRefused(OSError):
    """A symbolic link where rulespec was to write a file or make a folder."""

    def __init__(self, path: Path) -> None:
        super().__init__(errno.ELOOP, LINK_REFUSED, str(path))


def make_folder(folder: Path) -> Path:
    """Make `folder` (with the folders above it that are missing), refusing a symbolic
    link in its place (existing or dangling). Returns the folder."""
    folder = Path(folder)
    if folder.is_symlink():
        raise LinkRefused(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        if folder.is_symlink():  # planted after the check above
            raise LinkRefused(folder) from None
        raise
    if folder.is_symlink():
        raise LinkRefused(folder)
    return folder


def write_text(path: Path, text: str) -> Path:
    """Write `text` (UTF-8) to `path`, making the folders above it that are missing.

    A symbolic link at `path` is refused (`LinkRefused`); so is anything there that is
    not a regular file. The text goes to a new temporary file beside `path`, renamed over
    it once complete; an existing file keeps its permission bits. Returns `path`."""
    path = Path(path)
    _check_target(path)
    if not path.parent.is_dir():
        make_folder(path.parent)
    fd, tmp = _temporary(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        _check_target(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def _check_target(path: Path) -> None:
    """Refuse a link at `path`, and anything there but a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise LinkRefused(path)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", str(path))
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "is not a regular file", str(path))


def _temporary(path: Path) -> tuple[int, str]:
    """A new temporary file beside `path`, open for writing: (descriptor, name). It takes
    the permission bits of the file it will replace, else those a new file gets."""
    try:
        mode = stat.S_IMODE(os.lstat(path).st_mode)
    except FileNotFoundError:
        mode = 0o666  # less the umask, as for any new file
    stem = path.name[:100]
    for _ in range(100):
        tmp = str(path.with_name(f".{stem}.{secrets.token_hex(6)}.tmp"))
        try:
            fd = os.open(tmp, _FLAGS, mode)
        except FileExistsError:
            continue
        if mode != 0o666 and hasattr(os, "fchmod"):  # the umask does not apply to it
            with contextlib.suppress(OSError):
                os.fchmod(fd, mode)
        return fd, tmp
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))


def _unusable(check: Callable[[Path], str | None]) -> Callable[[Path], str | None]:
    """`check`, saying also why a path no file can have (a NUL in it, a name longer than
    the system allows, a loop of links) is refused, where `os.stat` would raise."""

    @functools.wraps(check)
    def checked(path: Path) -> str | None:
        if "\0" in str(path):
            return "a path cannot hold a NUL character"
        try:
            return check(Path(path))
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return f"cannot write here: {reason}"

    return checked


@_unusable
def output_file_problem(path: Path) -> str | None:
    """Why a command could not write the file `path`, or None: a link or a folder in its
    place, or no writable folder to hold it. Nothing is created."""
    path = Path(path)
    if path.is_symlink():
        return LINK_REFUSED
    if path.is_dir():
        return "is a directory, not a file"
    if path.exists() and not path.is_file():
        return "is not a regular file"
    folder = path.parent
    if not folder.exists():
        return f"no folder {str(folder)!r} to write into"
    if not folder.is_dir():
        return f"{str(folder)!r} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write into the folder {str(folder)!r}: permission denied"
    return None


@_unusable
def output_folder_problem(folder: Path) -> str | None:
    """Why a command could not make `folder` and write files into it, or None: a link or
    a file in its place (or above it, where folders would be made), or no permission.
    Nothing is created."""
    folder = Path(folder)
    if folder.is_symlink():
        return LINK_REFUSED
    if folder.exists() and not folder.is_dir():
        return "is a file, not a folder"
    above = folder
    while not above.exists():
        if above.is_symlink():
            return f"cannot write here: {str(above)!r} {LINK_REFUSED}"
        if above.parent == above:
            break
        above = above.parent
    if not above.is_dir():
        return f"cannot write here: {str(above)!r} is a file, not a folder"
    if not os.access(above, os.W_OK | os.X_OK):
        return "cannot write here: permission denied"
    return None
