"""Generic policies that play whole games fast, for play statistics.

Two policies that need no game-specific code:

- **random**: uniform among the legal actions. Runs the generated in-place `playout`
  loop of the model (`Game.random_playout`): no State or Action object per step.
- **greedy**: the action after which the acting player's own score is best (lower or
  higher, as the spec's `score.better` says), ties broken uniformly at random. "After"
  means after the action's effects and, if they end the round, the round's scoring —
  but before the next round's deal, which a player cannot foresee. With
  `score.provisional: scoring` every action is judged as if the round ended after it
  (the round's scoring run on the copy), so what the scoring will count (points in hand,
  tricks taken) guides the choice before the round ends. Each candidate is
  tried on a copy of the state by the model's copy-on-write effect functions (only the
  zones an effect changes are copied); shuffles inside a tried action draw from a
  look-ahead stream of their own, so trying never changes the game's own chance. The
  player chooses from what they see (`State.observation`): where the spec hides a zone
  from them, each action is tried on one state drawn at random among those that look the
  same to them (`Observer.redeal`: the hidden items dealt anew among the places they
  cannot see, from a stream of its own), never on the real hands and stock. An action
  that the drawn state cannot carry out (the rules read what the player cannot see, which
  the property `observation` reports) ranks last. In a joint action (`simultaneous: true`)
  every seat chooses its own part so (`Greedy.joint_choice`): it imagines the state from
  its own observation, draws the others' parts at random from a joint action legal
  there, and takes the part of its choices that leaves its own score best.

The random policy takes each legal action with the same chance. A joint action's legal
instances are the product of the seats' choices (each seat's condition reads only its
own parameters), so each seat's part is uniform over its own choices, drawn independently
of the others' parts and of what it cannot see.

Every game is seeded by its seed alone: the deal and shuffles by the model's
`SeededChance` (canonical by kind name), the policy's choices by a stream derived from
the same seed, so a game plays the same in any process, in any order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import NamedTuple

import model
from model import ir
from model.chance import Chance
from model.game import _new_state  # the State of in-place values, as random_playout makes

POLICIES = ("random", "greedy")
#: What the policies are, as a number stored beside statistics they played (the FAQ's):
#: statistics of another version are played again. 1: greedy saw every hand; 2: greedy
#: chooses from what the player sees (joint actions, each seat choosing its part, came
#: later without a new number: no statistics played before had one).
VERSION = 2


class GameRecord(NamedTuple):
    """What one game did. `outcome`: end (a game-end condition), cap (stopped by the
    safety cap, possibly endless), stuck (the player to act had no legal action) or error
    (the rules were undefined: a ModelError, whose message is `message`)."""

    number: int  # the game's index in its run (`index` would shadow tuple.index)
    outcome: str
    actions: int
    rounds: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    tally: tuple[int, ...]  # times each action was taken, then each round-end condition held
    ends: tuple[bool, ...]  # which game-end conditions hold at the end
    message: str = ""


def policy_rng(seed: int) -> random.Random:
    """The policy's own stream for the game with this seed (a str seed: hashed by SHA-512,
    so it shares nothing with the integer-seeded chance of the deal)."""
    return random.Random(f"rulespec policy {seed}")


def play_game(game: model.Game, policy: str, seed: int, index: int,
              max_actions: int) -> GameRecord:
    """One game under a policy; errors of the rules are recorded, not raised."""
    n_tally = len(game.ir.actions) + len(game.ir.round_end)
    tally = [0] * n_tally
    rnd = policy_rng(seed).random

    def pick(n: int) -> int:
        return int(rnd() * n)

    try:
        if policy == "random":
            n, state = game.random_playout(seed, pick, max_actions, tally)
        elif policy == "greedy":
            n, state = greedy_playout(game, seed, pick, max_actions, tally)
        else:
            raise ValueError(f"unknown policy {policy!r}")
    except model.ModelError as exc:
        return GameRecord(index, "error", sum(tally[:len(game.ir.actions)]), 0, (), (),
                          tuple(tally), (), str(exc))
    if state.is_terminal:
        outcome = "end"
    elif n >= max_actions:
        outcome = "cap"
    else:
        outcome = "stuck"
    ends = tuple(f(state.z, state.v) for _, f in game.ns["GAME_END"]) if state.is_terminal else ()
    return GameRecord(index, outcome, n, state.round, state.scores, state.winners,
                      tuple(tally), tuple(bool(x) for x in ends))


def require_policies(label: str, g: ir.GameIR, policies: Sequence[str]) -> None:
    """Raise SpecError if a version cannot be played by one of the policies (the greedy
    one needs to know which way the score is better); `stats` and `diff` ask before any
    other work."""
    if "greedy" in policies and g.score_better not in ("lower", "higher"):
        raise model.SpecError(model.Where(label),
                              "the greedy policy needs to know whether a lower or a higher "
                              "score is better: add `better: lower` or `better: higher` under "
                              "score (docs/spec-language.md)")


class Greedy:
    """The greedy choice in one game: `choose` ranks the legal options by the acting
    player's own score after each, tried on what that player sees (module docstring)."""

    def __init__(self, game: model.Game) -> None:
        require_policies(game.ir.file, game.ir, ("greedy",))
        self.sign = 1 if game.ir.score_better == "higher" else -1
        ns = game.ns
        self.round_end, self.scoring, self.score = ns["round_end"], ns["scoring"], ns["score"]
        self.trial_effects = game._effects
        # `score.provisional: scoring`: every action judged as if the round ended after it
        self.as_scored = game.ir.score_provisional == "scoring"
        self.observers = [game.observer(p) for p in range(game.players)]
        self.game, self.legal, self.make = game, ns["legal"], game.action

    def choose(self, Z: list[list[int]], V: list, options: list[model.Action],
               pick: Callable[[int], int], imagine: random.Random, look_ahead: Chance
               ) -> model.Action:
        """The option to take among several: `imagine` redeals what the actor cannot see,
        `look_ahead` is the chance of tried shuffles, `pick` breaks ties."""
        if any(o.is_joint for o in options):  # each seat chooses its part by its own view
            joint: dict[int, list[model.Action]] = {}
            for o in options:
                if o.is_joint:
                    joint.setdefault(o.index, []).append(o)
            built = {i: self.joint_choice(Z, V, i, js, imagine, look_ahead)
                     for i, js in joint.items()}
            options = [built.get(o.index, o) if o.is_joint else o for o in options
                       if not o.is_joint or o is joint[o.index][0]]
            if len(options) == 1:
                return options[0]
        actor = V[0]
        seen = self.observers[actor]
        Zs = seen.redeal(Z, imagine) if seen.blind else Z  # only what the actor sees
        best = [options[i] for i in self.best(Z, Zs, V, [(o.index, o.args) for o in options],
                                              actor, look_ahead)]
        return best[pick(len(best))] if len(best) > 1 else best[0]

    def best(self, Z: list[list[int]], Zs: list[list[int]], V: list,
             tries: list[tuple[int, tuple]], seat: int, look_ahead: Chance) -> list[int]:
        """Which of `tries` (action index, arguments), each run on the zones `Zs` (what
        `seat` imagines) with the variables `V`, leave `seat`'s own score best: their
        positions in `tries`. One that fails in an imagined state (not the real one, `Z`)
        ranks last."""
        round_end, scoring, score, sign = self.round_end, self.scoring, self.score, self.sign
        as_scored, actor = self.as_scored, V[0]
        best: list[int] = []
        top = None
        for n, (index, args) in enumerate(tries):
            Zt, Vt = Zs[:], V[:]  # the effects copy each zone they change
            try:
                self.trial_effects[index](Zt, Vt, look_ahead, *args)
                Vt[2] = actor
                if as_scored or round_end(Zt, Vt):
                    Zt = [z[:] for z in Zt]
                    scoring(Zt, Vt, look_ahead)
                s = sign * score(Zt, Vt, seat)
            except model.ModelError:
                if Zs is Z:
                    raise
                s = float("-inf")  # not possible in the state the seat imagines
            if top is None or s > top:
                top, best = s, [n]
            elif s == top:
                best.append(n)
        return best

    def joint_choice(self, Z: list[list[int]], V: list, index: int, options: list[model.Action],
                     imagine: random.Random, look_ahead: Chance) -> model.Action:
        """The joint action `index` as the seats choose it, each from its own observation:
        seat s imagines the state (the items it cannot see redealt), draws the others' parts
        from one joint action legal there, at random, and takes the part of its own choices
        (those of `options`, which depend only on what it sees) that leaves its own score
        best with those parts (ties at random). Each seat draws from a stream of its own,
        seeded from `imagine` before any seat chooses. Nobody sees another's real hand or
        part."""
        decl = self.game.ir.actions[index]
        args = list(options[0].args)
        # a stream per seat, drawn before any seat chooses: what one seat imagines and how
        # it breaks ties depend on its own observation alone, not on the others' views
        seeds = [imagine.getrandbits(64) for _ in decl.joint]
        for s, mine in enumerate(decl.joint):
            parts = list(dict.fromkeys(o.component(s) for o in options))
            own = random.Random(seeds[s])
            if len(parts) == 1:
                choice = parts[0]
            else:
                seen = self.observers[s]
                Zs = seen.redeal(Z, own) if seen.blind else Z
                there = [o for o in self.legal(Zs, V, self.make) if o.index == index]
                if not there:  # the rules read what s cannot see (the property observation)
                    choice = parts[own.randrange(len(parts))]
                else:
                    others = list(there[own.randrange(len(there))].args)
                    tries = []
                    for part in parts:
                        tried = others[:]
                        for i, v in zip(mine, part, strict=True):
                            tried[i] = v
                        tries.append((index, tuple(tried)))
                    best = self.best(Z, Zs, V, tries, s, look_ahead)
                    choice = parts[best[own.randrange(len(best))]]
            for i, v in zip(mine, choice, strict=True):
                args[i] = v
        return self.make(index, tuple(args))


def greedy_playout(game: model.Game, seed: int, pick: Callable[[int], int], max_actions: int,
                   tally: list[int]) -> tuple[int, model.State]:
    """Play one game greedily in place; returns the number of actions and the final state."""
    greedy = Greedy(game)
    ns = game.ns
    legal, make = ns["legal"], game.action
    round_end, scoring, game_end = ns["round_end"], ns["scoring"], ns["game_end"]
    round_start, conditions = ns["round_start"], ns["ROUND_END"]
    effects = game._effects_in_place
    first_condition = len(game.ir.actions)

    start = game.initial_state(seed)
    Z, V = [z[:] for z in start.z], list(start.v)
    chance = game.chance(seed, 0)
    look_ahead = game.chance(seed, -2)
    imagine = random.Random(f"rulespec observation {seed}")  # the hidden items, redealt
    n, terminal = 0, False
    while n < max_actions:
        options = legal(Z, V, make)
        if not options:
            break
        actor = V[0]
        a = options[0] if len(options) == 1 else greedy.choose(Z, V, options, pick, imagine,
                                                                look_ahead)
        tally[a.index] += 1
        effects[a.index](Z, V, chance, *a.args)
        V[2] = actor
        n += 1
        if round_end(Z, V):
            for j, (_, holds) in enumerate(conditions, first_condition):
                if holds(Z, V):
                    tally[j] += 1
            scoring(Z, V, chance)
            if game_end(Z, V):
                terminal = True
                break
            V[1] += 1
            round_start(Z, V, chance)
    return n, _new_state(game, tuple(Z), tuple(V), terminal, seed, n)
