"""A witness the spec records for an expected z3 failure (`expect: [{property: ...,
witness: FILE}]`), replayed on the concrete model: exact, and far faster than finding it
again within the budget (one spec's three-player game cycle took z3 26 minutes to find).

A game cycle must come back to a round start it has been at, a round cycle to a state it
has been at within the same round, and a supply must run short at a step: the z3
encoding's own shortage flags hold on its transition pinned to that concrete step
(`supply.shortages`), so the replay shows exactly what the search looks for. Only a
replay that shows the failure counts; one that does not (the rules changed, the file is
for other readings) is ignored and the query searches as usual.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import model
from model import ir
from model.ir import expectation_for

from ...concrete import trace as tr


def recorded_witness(game: model.Game, prop: str) -> tuple[str, dict] | None:
    """The replay file the spec records for the expected failure of `prop` at this player
    count and choice of variants: (the path as the spec writes it, its contents), or None
    (no such file, or one for another configuration)."""
    found = recorded_file(game.ir, prop)
    if found is None:
        return None
    witness, path = found
    try:
        data = tr.read_replay(path)
    except model.SpecError:
        return None
    if data["players"] != game.ir.players:
        return None
    try:  # the replay names the readings it chose; the others are the defaults
        chosen = model.load(game.ir.file, players=data["players"], variants=data["variants"])
    except model.SpecError:
        return None
    if chosen.ir.chosen != game.ir.chosen:
        return None
    return witness, data


def recorded_problem(g: ir.GameIR, prop: str) -> str | None:
    """Why the replay file the spec records for `prop` cannot be replayed at all (it is
    in none of the folders a witness is looked for in, not a valid replay file: the
    reader's error, with file, line and column; or a step of it cannot be played), or None
    if it plays."""
    witness = _declared(g, prop)
    if witness is None:
        return None
    found = recorded_file(g, prop)
    if found is None:
        return (f"{witness} is not a file in "
                + " nor in ".join(str(f) for f in witness_folders(g.file)))
    try:
        data = tr.read_replay(found[1])
    except model.SpecError as exc:
        return str(exc)
    if data["players"] != g.players:
        return None  # a file for another configuration: not this row's
    played = 0
    try:
        for step in steps(model.load(g.file, players=g.players, variants=g.chosen), data):
            played = step[0]
    except model.RulespecError as exc:
        return f"{witness}, action {played + 1}: {exc}"
    return None


def recorded_file(g: ir.GameIR, prop: str) -> tuple[str, Path] | None:
    """The replay file the spec records for the expected failure of `prop` at this player
    count and choice of variants, if there is one in a folder a witness is looked for in
    (`witness_folders`): (the path as the spec writes it, the file), or None."""
    witness = _declared(g, prop)
    if witness is None:
        return None
    for folder in witness_folders(g.file):
        path = _inside(folder, witness)
        if path is not None:
            return witness, path
    return None


def witness_folders(spec_file: str) -> list[Path]:
    """Where a spec's recorded witnesses are looked for: the spec's own folder, then the
    folder of the specs rulespec ships (model.schema.SPEC_DIR), so that a copy of a shipped
    spec, an installed package and the `PATH@REV` side of a diff find them too. A file
    found either way is taken only where it replays on the spec's rules and shows the
    failure, so a file written for other rules is never taken for this spec's."""
    from model.schema import SPEC_DIR

    own, shipped = Path(spec_file).resolve().parent, SPEC_DIR.resolve()
    return [own] if own == shipped else [own, shipped]


def _declared(g: ir.GameIR, prop: str) -> str | None:
    """The replay file, as the spec writes it, recorded for the expected failure of `prop`
    at this player count and choice of variants (None if there is none)."""
    e = expectation_for(g, prop)
    return e.witness if e is not None and e.result == "fail" and e.witness else None


def _inside(folder: Path, witness: str) -> Path | None:
    """`witness` (a path from `folder`) if it is a file there; a path leaving the folder
    (through `..` or a link) is not followed: a spec is untrusted input."""
    path = (folder / witness).resolve()
    if Path(witness).is_absolute() or not path.is_relative_to(folder) or not path.is_file():
        return None
    return path


def steps(game: model.Game, data: dict
          ) -> Iterator[tuple[int, model.State, model.Action, model.State]]:
    """The replay played on `game`: each step as (actions taken after it, the state
    before, the action, the state after). Raises a RulespecError at a step that cannot be
    played: an action the rules refuse or the game does not know, a shuffle the file does
    not record."""
    state, chance = tr.start(game, data)
    for n, text in enumerate(data["actions"], 1):
        action = game.parse_action(text)
        nxt = state.apply(action, chance=chance)
        yield n, state, action, nxt
        state = nxt


def start_of(replay: dict) -> str:
    """Where a replay file starts: `deal` (the first deal) or `situation` (a state it
    records, not shown reachable from a deal)."""
    return "deal" if replay.get("situation") is None else "situation"


def round_starts(game: model.Game, data: dict) -> list[tuple[int, model.State]]:
    """The replay played on `game`: the state it starts from and each state where a round
    has just begun, with the number of actions taken to reach it."""
    out = [(0, tr.start(game, data)[0])]
    out += [(n, nxt) for n, state, _, nxt in steps(game, data) if nxt.round != state.round]
    return out


def repeated_start(game: model.Game, data: dict, skip: frozenset[str]
                   ) -> tuple[int, int] | None:
    """Two round starts of the replay with equal states (the variables in `skip` and the
    chance's position aside), as (actions to the first, actions to the second)."""
    seen: dict[str, int] = {}
    for n, state in round_starts(game, data):
        key = _key(state, skip)
        if key in seen:
            return seen[key], n
        seen[key] = n
    return None


def repeated_in_round(game: model.Game, data: dict) -> tuple[int, int] | None:
    """Two states of the replay, within one round, that are equal (the chance's position
    aside), as (actions to the first, actions to the second)."""
    seen = {_key(tr.start(game, data)[0], frozenset()): 0}
    for n, state, _, nxt in steps(game, data):
        if nxt.round != state.round or nxt.is_terminal:
            seen = {}
        key = _key(nxt, frozenset())
        if key in seen:
            return seen[key], n
        seen[key] = n
    return None


def _key(state: model.State, skip: frozenset[str]) -> str:
    d = state.to_dict()
    d.pop("step", None)  # the chance's position, not the game's
    for name in skip:
        d.pop(name, None)
        d["vars"].pop(name, None)
    return repr(sorted(d.items()))

