"""Effect lemmas (properties/symbolic/lemmas.py): each effect, from any state whose zones are
sound, keeps them sound and keeps every kind's total; a broken effect is not proved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import z3

import model
from model import ir
from model.schema import SPEC_DIR
from properties.symbolic.lemmas import Lemmas
from properties.symbolic.machine import Machine

MUTANTS = Path(__file__).parent / "mutants_z3"


def _walk(body: tuple[ir.Stmt, ...]) -> Iterator[ir.Stmt]:
    for s in body:
        yield s
        match s:
            case ir.If(then=a, orelse=b):
                yield from _walk(a)
                yield from _walk(b)
            case ir.For(body=b) | ir.While(body=b) | ir.Repeat(body=b):
                yield from _walk(b)


def _effects(body: tuple[ir.Stmt, ...]) -> list[ir.Do]:
    return [s for s in _walk(body) if isinstance(s, ir.Do)]


def _effect(body: tuple[ir.Stmt, ...], fn: str, zone: str) -> ir.Do:
    return next(s for s in _effects(body) if s.fn == fn and zone in repr(s.args[0]))


def test_every_effect_of_every_spec_is_proved() -> None:
    for spec in sorted(SPEC_DIR.glob("*.yaml")):
        g = model.load_ir(spec, players=3)
        enc = Machine(g).enc
        lemmas = Lemmas(enc)
        bodies = [*(a.effects for a in g.actions), g.scoring, g.round_start]
        # every name an effect may use: action parameters and loop variables, each free
        names = {n for a in g.actions for n, _ in a.params}
        names |= {s.var for body in bodies for s in _walk(body) if isinstance(s, ir.For)}
        env = {name: z3.Int(name) for name in names}
        for stmt in (d for body in bodies for d in _effects(body)):
            assert lemmas.check([(stmt, (0,) * enc.n_inst, env)], lambda: 60_000_000) is None, (
                spec, stmt)


def test_an_effect_that_misplaces_a_card_is_not_proved() -> None:
    g = model.load_ir(MUTANTS / "lama_card_among_chips.yaml", players=3)
    enc = Machine(g).enc
    play = next(a for a in g.actions if a.name == "play")
    stmt = _effect(play.effects, "move", "card")
    why = Lemmas(enc).check([(stmt, (0,) * enc.n_inst, {"card": z3.Int("card")})], lambda: 60_000_000)
    assert why is not None and "not proved alone" in why


def test_moving_a_one_card_pile_does_not_expose_what_lay_below_it_elsewhere() -> None:
    """A pile holding one card, with an item remembered below it from earlier in the
    transition, moved onto another pile: the remembered item is not the new second item
    there (the destination's own old top is). The lemma found this in the encoding."""
    g = model.load_ir(SPEC_DIR / "lambada.yaml", players=2)
    enc = Machine(g).enc
    stmt = _effect(g.round_start, "move_all", "reveal")
    depths = tuple(1 if enc.inst_name(i) == "reveal" else 0 for i in range(enc.n_inst))
    assert Lemmas(enc).check([(stmt, depths, {})], lambda: 60_000_000) is None
