"""Classic 斗地主 as a state machine: the deal, 叫地主/抢地主, 明牌, 加倍, the play, the end.

It is the game's ``GameStateProtocol`` (``games.rules.protocol``). The state is immutable:
``apply(seat, action)`` returns a new state. Phases, in order (``Phase``):

``deal``
    The cards are shown dealt in 17 steps, by the platform's clock: ``DealOn(step)`` (made in the
    name of the seat to move, the seat that will bid first) says how many cards each seat has been
    shown; step 17 ends the deal. Any seat may declare 明牌 meanwhile (``SHOW``), out of turn:
    before the first card (``dealt == 0``, 明牌开始, ×5), during steps 1-8 (×4) or 9-17 (×3).
``bid``
    叫地主 / 不叫 in seat order from the first bidder (the deal's, drawn from its seed, or the
    first seat that declared 明牌), then 抢地主 / 不抢 (§2). Until the first bid a seat may
    still declare 明牌 (at step 17, ×3). All 不叫: the first 明牌 seat becomes landlord, or,
    with no 明牌, the cards are dealt again from the deal's ``next_seed`` (a new ``deal`` phase;
    ``deals`` keeps every deal).
``double``
    The landlord has taken the bottom cards (now public). Each seat says 加倍 or 不加倍
    (``Double``), out of turn if it likes; ``to_move`` is the first who has not, farmers first
    (as in 欢乐斗地主, the landlord answers last). The landlord may declare 明牌 (×2) until its
    first play.
``play``
    The landlord leads; plays and passes (§5, §6) until a hand is empty.
``over``
    ``winner`` is the seat that went out; ``settle`` gives the payments (§7).

A seat may act out of turn only to declare 明牌 and to choose 加倍; every other action is
checked with ``check_turn``. ``legal_actions(seat)`` lists what ``seat`` may do now, out of turn
included; ``legal_moves()`` lists the card plays (and the pass) of the seat to move.

>>> state = GameState.from_position(
...     ["3s 3h 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s 2h 2d 2c",
...      "3d 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah 3c 4d 5d 6d 7d",
...      "8d 9d Td Jd Qd Kd Ad 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc"],
...     bottom="Ac BJ RJ", first_bidder=0)
>>> state = state.apply(0, DealOn(17)).apply(0, CALL).apply(1, NO_ROB).apply(2, NO_ROB)
>>> state.phase.value, state.landlord, state.to_move
('double', 0, 1)
>>> state = state.apply(1, NO_DOUBLE).apply(2, NO_DOUBLE).apply(0, NO_DOUBLE)
>>> state.phase.value, state.to_move, str(state.legal_moves()[0])
('play', 0, '3s')
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from ..cards import CARDS, Card, cards_from_mask, format_cards, mask_of, parse_cards
from ..errors import IllegalMoveError
from ..history import LogNode, unwind
from ..protocol import Phase, check_turn
from ..views import seat_view
from .combos import Combo, beats
from .movegen import Moves, legal_plays
from .moves import (
    CALL,
    DOUBLE,
    NO_CALL,
    NO_DOUBLE,
    NO_ROB,
    ROB,
    Action,
    Bid,
    DealOn,
    Double,
    Move,
    Pass,
    Play,
    Show,
    parse_action,
)
from .options import STANDARD, DoudizhuRules

__all__ = [
    "DEAL_STEPS",
    "Deal",
    "GameState",
    "Phase",
    "TablePlay",
    "deal_from_seed",
    "deal_numbers",
]

DEAL_STEPS = 17
SEATS = 3


class Deal(NamedTuple):
    """One deal: its seed (None for a deal written out by hand), each seat's 17 cards in the
    order they are dealt, the 3 bottom cards, the seat that bids first, and the seed of the next
    deal should everyone say 不叫."""

    seed: int | None
    hands: tuple[tuple[Card, ...], ...]
    bottom: tuple[Card, ...]
    first_bidder: int
    next_seed: int

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.seed is not None:
            data["seed"] = self.seed
        data["first_bidder"] = self.first_bidder
        data["hands"] = [" ".join(str(card) for card in hand) for hand in self.hands]
        data["bottom"] = " ".join(str(card) for card in self.bottom)
        return data


def deal_from_seed(seed: int, first_bidder: int | None = None) -> Deal:
    """Shuffle and deal from a seed.

    The deck starts in canonical order (3s 3h 3d 3c 4s ... 2c BJ RJ) and is shuffled with
    ``random.Random(seed).shuffle``; the cards go round one at a time, seat 0 first (seat ``s``
    gets cards ``s, s + 3, ...``), and the last three are the bottom. The same generator then
    draws the first bidder with ``randrange(3)`` (kept when ``first_bidder`` is given) and the
    seed of a redeal with ``getrandbits(63)``.
    """
    if type(seed) is not int or seed < 0:
        raise ValueError("a seed is a non-negative whole number")
    rng = random.Random(seed)
    deck = list(CARDS)
    rng.shuffle(deck)
    hands = tuple(tuple(deck[3 * i + seat] for i in range(DEAL_STEPS)) for seat in range(SEATS))
    drawn = rng.randrange(SEATS)
    if first_bidder is None:
        first_bidder = drawn
    elif first_bidder not in range(SEATS):
        raise ValueError("the first bidder is a seat from 0 to 2")
    return Deal(seed, hands, tuple(deck[51:]), first_bidder, rng.getrandbits(63))


class TablePlay(NamedTuple):
    """The play on the table and the seat that made it."""

    seat: int
    play: Play

    @property
    def combo(self) -> Combo:
        assert self.play.combo is not None
        return self.play.combo

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "cards": str(self.play), **self.combo.to_json()}


class _Fields(NamedTuple):
    rules: DoudizhuRules
    deals: tuple[Deal, ...]  # every deal so far; the last is being played
    upcoming: tuple[Deal, ...]  # deals written out for the redeals to come (records, tests)
    coins: tuple[int, ...] | None  # each seat's coins, for the doubling threshold
    dealt: int  # deal steps shown, 0..17
    shows: tuple[tuple[int, Show], ...]  # 明牌 declarations of this deal, in order
    bids: tuple[tuple[int, Bid], ...]  # the bidding of this deal, in order
    first_bidder: int
    landlord: int | None
    robs: int
    hands: tuple[int, ...]  # card masks by seat (the landlord's with the bottom once taken)
    doubles: tuple[bool | None, ...]  # 加倍 by seat; None: not chosen yet
    to_move: int | None
    table: TablePlay | None
    passes: int
    bombs: int  # bombs and rockets played
    plays_made: tuple[int, ...]  # plays by seat, for 春天 / 反春
    winner: int | None
    log: LogNode[Action] | None
    log_length: int


class GameState(_Fields):
    """A position of a game of 斗地主, with everything needed to go on from it."""

    __slots__ = ()

    # Construction -------------------------------------------------------------------------------

    @classmethod
    def deal(
        cls,
        seed: int,
        *,
        first_bidder: int | None = None,
        rules: DoudizhuRules = STANDARD,
        coins: Sequence[int] | None = None,
    ) -> GameState:
        """A new game dealt from ``seed`` (see ``deal_from_seed``), at deal step 0."""
        return cls.from_deal(deal_from_seed(seed, first_bidder), rules=rules, coins=coins)

    @classmethod
    def from_position(
        cls,
        hands: Sequence[str | Iterable[Card]],
        bottom: str | Iterable[Card],
        first_bidder: int,
        *,
        rules: DoudizhuRules = STANDARD,
        coins: Sequence[int] | None = None,
        next_seed: int = 0,
        upcoming: Sequence[Deal] = (),
    ) -> GameState:
        """A new game from hands written out (each in the order dealt) and the bottom cards."""
        if len(hands) != SEATS:
            raise ValueError("斗地主 deals three hands")
        cards = tuple(parse_cards(h) if isinstance(h, str) else tuple(h) for h in hands)
        bottom_cards = parse_cards(bottom) if isinstance(bottom, str) else tuple(bottom)
        deal = Deal(None, cards, bottom_cards, first_bidder, next_seed)
        return cls.from_deal(deal, rules=rules, coins=coins, upcoming=upcoming)

    @classmethod
    def from_deal(
        cls,
        deal: Deal,
        *,
        rules: DoudizhuRules = STANDARD,
        coins: Sequence[int] | None = None,
        upcoming: Sequence[Deal] = (),
    ) -> GameState:
        _check_deal(deal)
        for later in upcoming:
            _check_deal(later)
        if coins is not None:
            coins = tuple(coins)
            if len(coins) != SEATS or any(type(c) is not int or c < 0 for c in coins):
                raise ValueError("coins are three whole numbers ≥ 0, one per seat")
        return cls._make(
            (
                rules,
                (deal,),
                tuple(upcoming),
                coins,
                0,
                (),
                (),
                deal.first_bidder,
                None,
                0,
                tuple(mask_of(hand) for hand in deal.hands),
                (None, None, None),
                deal.first_bidder,
                None,
                0,
                0,
                (0, 0, 0),
                None,
                None,
                0,
            )
        )

    @classmethod
    def play_position(
        cls,
        hands: Sequence[str | Iterable[Card]],
        *,
        landlord: int = 0,
        bottom: str | Iterable[Card] = "",
    ) -> GameState:
        """A game at its first lead: ``hands`` as they are now (the landlord's with the bottom
        cards), the bidding and doubling skipped (nobody robbed, showed or doubled). For tests,
        positions and benchmarks; such a state has no record."""
        masks = []
        seen = 0
        for hand in hands:
            mask = mask_of(parse_cards(hand) if isinstance(hand, str) else hand)
            if seen & mask:
                raise ValueError("a card is in two hands")
            seen |= mask
            masks.append(mask)
        if len(masks) != SEATS or not all(masks):
            raise ValueError("three hands of at least one card each")
        bottom_cards = parse_cards(bottom) if isinstance(bottom, str) else tuple(bottom)
        if mask_of(bottom_cards) & ~masks[landlord]:
            raise ValueError("the bottom cards are in the landlord's hand")
        deal = Deal(None, tuple(cards_from_mask(m) for m in masks), bottom_cards, landlord, 0)
        return cls._make(
            (
                STANDARD,
                (deal,),
                (),
                None,
                DEAL_STEPS,
                (),
                (),
                landlord,
                landlord,
                0,
                tuple(masks),
                (False, False, False),
                landlord,
                None,
                0,
                0,
                (0, 0, 0),
                None,
                None,
                0,
            )
        )

    def with_coins(self, coins: Sequence[int] | None) -> GameState:
        """This state with each seat's coins, which the room's doubling threshold reads (§4);
        they may be given until the doubling begins."""
        if self.landlord is not None:
            raise ValueError("the coins are given before the doubling")
        if coins is not None:
            coins = tuple(coins)
            if len(coins) != SEATS or any(type(c) is not int or c < 0 for c in coins):
                raise ValueError("coins are three whole numbers ≥ 0, one per seat")
        return self._replace(coins=coins)

    # Reading the position -------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return SEATS

    @property
    def current_player(self) -> int | None:
        return self.to_move

    @property
    def phase(self) -> Phase:
        if self.winner is not None:
            return Phase.OVER
        if self.landlord is None:
            return Phase.DEAL if self.dealt < DEAL_STEPS else Phase.BID
        if None in self.doubles:
            return Phase.DOUBLE
        return Phase.PLAY

    @property
    def is_terminal(self) -> bool:
        return self.winner is not None

    @property
    def current_deal(self) -> Deal:
        return self.deals[-1]

    def hand(self, seat: int) -> tuple[Card, ...]:
        """``seat``'s cards now (during the deal: all 17, shown or not). Secret."""
        return cards_from_mask(self.hands[seat])

    def hand_count(self, seat: int) -> int:
        return self.hands[seat].bit_count()

    def visible_count(self, seat: int) -> int:
        """How many cards ``seat``'s box shows: during the deal, those dealt so far."""
        return len(self._visible_hand(seat))

    @property
    def shown(self) -> tuple[bool, ...]:
        """Whether each seat has declared 明牌 in this deal."""
        seats = {seat for seat, _ in self.shows}
        return tuple(seat in seats for seat in range(SEATS))

    @property
    def show_multiplier(self) -> int:
        """The largest 明牌 multiplier declared (1 when none): several count once (§3)."""
        return max((show.multiplier for _, show in self.shows), default=1)

    @property
    def spring(self) -> str | None:
        """Once over: ``"spring"`` (春天: the farmers played no card), ``"anti_spring"`` (反春:
        the landlord played only the first lead), else None."""
        if self.winner is None or self.landlord is None:
            return None
        landlord = self.landlord
        if self.winner == landlord:
            farmers = sum(self.plays_made) - self.plays_made[landlord]
            return "spring" if farmers == 0 else None
        return "anti_spring" if self.plays_made[landlord] == 1 else None

    @property
    def multiplier(self) -> int:
        """The game multiplier so far (§7): 抢, 明牌, bombs and rockets, spring."""
        spring = 2 if self.spring is not None else 1
        return (1 << self.robs) * self.show_multiplier * (1 << self.bombs) * spring

    def may_double(self, seat: int) -> bool:
        """Whether ``seat`` may say 加倍 (§4): the room's threshold against the coins."""
        threshold = self.rules.double_threshold
        if threshold is None:
            return True
        if self.coins is None or self.landlord is None:
            return False
        if seat == self.landlord:
            return all(c > threshold for c in self.coins)
        return self.coins[seat] > threshold and self.coins[self.landlord] > threshold

    @property
    def history(self) -> tuple[tuple[int, Action], ...]:
        """Every action so far, every deal's, oldest first, as (seat, action)."""
        return unwind(self.log)

    @property
    def round_actions(self) -> tuple[tuple[int, Move], ...]:
        """The plays and passes of the round being played, in order, from the play that led it
        (the game's first, or one after two passes in a row); none while a new round waits for
        its lead."""
        if self.table is None:
            return ()
        moves = [(seat, action) for seat, action in self.history if isinstance(action, Play | Pass)]
        start = len(moves) - 1
        while start > 0 and not (
            isinstance(moves[start][1], Play)
            and start >= 2
            and isinstance(moves[start - 1][1], Pass)
            and isinstance(moves[start - 2][1], Pass)
        ):
            start -= 1
        return tuple(moves[start:])

    @property
    def bottom(self) -> tuple[Card, ...]:
        return self.current_deal.bottom

    # Legal actions --------------------------------------------------------------------------------

    def legal_moves(self) -> Moves:
        """The plays of the seat to move, and the pass first when it may pass; empty outside
        the play. A read-only sequence (``movegen.Moves``) that makes each play when read."""
        if self.to_move is None or self.phase is not Phase.PLAY:
            return Moves([])
        table = self.table
        return legal_plays(self.hands[self.to_move], None if table is None else table.combo)

    def legal_actions(self, seat: int) -> list[Action]:
        """Everything ``seat`` may do now, in a fixed order: its turn's actions, then
        ``side_actions``; out of turn, only those."""
        if type(seat) is not int or not 0 <= seat < SEATS or self.to_move is None:
            return []
        phase = self.phase
        actions: list[Action] = []
        if phase is Phase.DEAL and seat == self.to_move:
            actions += [DealOn(step) for step in range(self.dealt + 1, DEAL_STEPS + 1)]
        elif phase is Phase.BID and seat == self.to_move:
            actions += [CALL, NO_CALL] if self._bid_stage() == "call" else [ROB, NO_ROB]
        elif phase is Phase.PLAY and seat == self.to_move:
            actions += self.legal_moves()
        return actions + self.side_actions(seat)

    def side_actions(self, seat: int) -> list[Action]:
        """The 加倍 and 明牌 ``seat`` may declare now, whoever is to move: the end of
        ``legal_actions``, without making the plays it starts with."""
        if type(seat) is not int or not 0 <= seat < SEATS or self.to_move is None:
            return []
        actions: list[Action] = []
        if self.phase is Phase.DOUBLE and self.doubles[seat] is None:
            actions.append(NO_DOUBLE)
            if self.may_double(seat):
                actions.append(DOUBLE)
        show = self._show_moment(seat)
        if isinstance(show, Show):
            actions.append(show)
        return actions

    def is_legal(self, seat: int, action: Action) -> bool:
        try:
            self.resolve(seat, action)
        except IllegalMoveError:
            return False
        return True

    def resolve(self, seat: int, action: Action, *, strict: bool = False) -> Action:
        """``action`` by ``seat`` as it counts here (a 明牌 gets its moment), or
        ``IllegalMoveError`` with a stable code (see ``docs/record-format.md``). ``strict``
        changes nothing in 斗地主: a multiset of ranks is one combination at most, so no play
        needs a meaning; it is kept for the protocol."""
        to_move = self.to_move
        if to_move is None:
            raise IllegalMoveError.out_of_turn(seat, to_move)
        if isinstance(action, Show):
            if type(seat) is not int or not 0 <= seat < SEATS:
                raise IllegalMoveError.out_of_turn(seat, to_move)
            moment = self._show_moment(seat)
            if isinstance(moment, str):
                raise IllegalMoveError(*_SHOW_ERRORS[moment])
            if action.moment is not None and action != moment:
                raise IllegalMoveError("wrong_moment", f"this 明牌 would be {moment}, not {action}")
            return moment
        if isinstance(action, Double):
            if type(seat) is not int or not 0 <= seat < SEATS:
                raise IllegalMoveError.out_of_turn(seat, to_move)
            if self.phase is not Phase.DOUBLE:
                raise IllegalMoveError("wrong_phase", f"{action} only while doubling")
            if self.doubles[seat] is not None:
                raise IllegalMoveError("already_chose", f"seat {seat} has chosen already")
            if action.yes and not self.may_double(seat):
                raise IllegalMoveError(
                    "may_not_double", f"seat {seat} may not 加倍: coins at or below the threshold"
                )
            return action
        check_turn(seat, to_move)
        phase = self.phase
        if isinstance(action, DealOn):
            if phase is not Phase.DEAL:
                raise IllegalMoveError("wrong_phase", "the deal is over")
            if not self.dealt < action.step <= DEAL_STEPS:
                raise IllegalMoveError(
                    "bad_step", f"the deal is at step {self.dealt}: it goes on, up to 17"
                )
            return action
        if isinstance(action, Bid):
            if phase is not Phase.BID:
                raise IllegalMoveError("wrong_phase", f"{action} only while bidding")
            stage = self._bid_stage()
            if (stage == "call") != (action in (CALL, NO_CALL)):
                expected = "叫地主 or 不叫" if stage == "call" else "抢地主 or 不抢"
                raise IllegalMoveError("wrong_bid", f"seat {seat} says {expected} now")
            return action
        if isinstance(action, (Play, Pass)):
            if phase is not Phase.PLAY:
                raise IllegalMoveError("wrong_phase", "cards are played only after 加倍")
            return self._resolve_move(seat, action, strict)
        raise IllegalMoveError("not_an_action", f"{action!r} is not an action")

    def _resolve_move(self, seat: int, move: Move, strict: bool) -> Move:
        table = self.table
        if isinstance(move, Pass):
            if table is None:
                raise IllegalMoveError(
                    "leader_must_play", f"seat {seat} leads this round and may not pass"
                )
            return move
        missing = move.mask & ~self.hands[seat]
        if missing:
            raise IllegalMoveError(
                "cards_not_in_hand",
                f"seat {seat} does not hold {format_cards(cards_from_mask(missing))}",
            )
        if move.combo is None:
            raise IllegalMoveError("not_a_combination", f"{move} is not a combination")
        if table is not None and not beats(move.combo, table.combo):
            raise IllegalMoveError(
                "does_not_beat", f"{move} ({move.combo}) does not beat {table.combo} on the table"
            )
        return move

    def _show_moment(self, seat: int) -> Show | str:
        """The 明牌 ``seat`` may declare now, or why it may not (a key of ``_SHOW_ERRORS``)."""
        if self.shown[seat]:
            return "already"
        if self.landlord is None:
            if self.bids:
                return "late"
            if self.dealt == 0:
                return Show("start")
            return Show("deal", self.dealt)
        if self.winner is not None or any(self.plays_made):
            return "late"
        if seat != self.landlord:
            return "landlord"
        return Show("bottom")

    def _bid_stage(self) -> str:
        outcome = _bidding(self.first_bidder, self.bids, self._first_shower())
        return outcome[0]

    def _first_shower(self) -> int | None:
        return self.shows[0][0] if self.shows else None

    # Applying actions -----------------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> GameState:
        """The state after ``seat`` makes ``action``; raises as ``resolve`` does."""
        action = self.resolve(seat, action)
        log = (self.log, seat, action)
        length = self.log_length + 1
        if isinstance(action, Pass):
            return self._after_pass(log, length)
        if isinstance(action, Play):
            return self._after_play(seat, action, log, length)
        if isinstance(action, DealOn):
            return self._replace(dealt=action.step, log=log, log_length=length)
        if isinstance(action, Show):
            changes: dict[str, Any] = {"shows": (*self.shows, (seat, action))}
            if self.landlord is None and not self.shows:
                changes["first_bidder"] = changes["to_move"] = seat
            return self._replace(log=log, log_length=length, **changes)
        if isinstance(action, Double):
            doubles = list(self.doubles)
            doubles[seat] = action.yes
            return self._replace(
                doubles=tuple(doubles),
                to_move=_next_to_double(doubles, self.landlord),
                log=log,
                log_length=length,
            )
        assert isinstance(action, Bid)
        return self._after_bid(seat, action, log, length)

    def apply_text(self, seat: int, text: str) -> GameState:
        return self.apply(seat, parse_action(text))

    def _after_bid(self, seat: int, bid: Bid, log: LogNode[Action], length: int) -> GameState:
        bids = (*self.bids, (seat, bid))
        stage, who = _bidding(self.first_bidder, bids, self._first_shower())
        if stage in ("call", "rob"):
            return self._replace(bids=bids, to_move=who, log=log, log_length=length)
        if stage == "redeal":
            if self.upcoming:
                deal, upcoming = self.upcoming[0], self.upcoming[1:]
            else:
                deal, upcoming = deal_from_seed(self.current_deal.next_seed), ()
            return self._replace(
                deals=(*self.deals, deal),
                upcoming=upcoming,
                dealt=0,
                shows=(),
                bids=(),
                first_bidder=deal.first_bidder,
                hands=tuple(mask_of(hand) for hand in deal.hands),
                to_move=deal.first_bidder,
                log=log,
                log_length=length,
            )
        assert who is not None
        hands = list(self.hands)
        hands[who] |= mask_of(self.current_deal.bottom)
        doubles: list[bool | None] = [None, None, None]
        return self._replace(
            bids=bids,
            landlord=who,
            robs=sum(1 for _, b in bids if b == ROB),
            hands=tuple(hands),
            doubles=tuple(doubles),
            to_move=_next_to_double(doubles, who),
            log=log,
            log_length=length,
        )

    def _after_pass(self, log: LogNode[Action], length: int) -> GameState:
        seat = self.to_move
        assert seat is not None and self.table is not None
        passes = self.passes + 1
        if passes < SEATS - 1:
            return self._replace(
                to_move=(seat + 1) % SEATS, passes=passes, log=log, log_length=length
            )
        return self._replace(
            to_move=self.table.seat, table=None, passes=0, log=log, log_length=length
        )

    def _after_play(self, seat: int, play: Play, log: LogNode[Action], length: int) -> GameState:
        assert play.combo is not None
        hands = list(self.hands)
        hands[seat] ^= play.mask
        plays = list(self.plays_made)
        plays[seat] += 1
        finished = not hands[seat]
        return self._replace(
            hands=tuple(hands),
            to_move=None if finished else (seat + 1) % SEATS,
            table=TablePlay(seat, play),
            passes=0,
            bombs=self.bombs + play.combo.is_bomb,
            plays_made=tuple(plays),
            winner=seat if finished else None,
            log=log,
            log_length=length,
        )

    # Views ----------------------------------------------------------------------------------------

    def view_for(self, seat: int | None, *, history: bool = True) -> dict[str, Any]:
        """What ``seat`` may see, JSON-safe: its own hand (during the deal, the cards shown so
        far), the others' counts, a 明牌 hand to everyone, the bottom once the landlord has it;
        never a seed, a hidden hand or a later deal. ``None``: a spectator."""
        if seat is not None and not (type(seat) is int and 0 <= seat < SEATS):
            raise ValueError(f"no seat {seat!r} in a game of 3")
        return seat_view(
            self, seat, history=history, public=self._public_view, hand=self._view_hand
        )

    def _public_view(self, history: bool) -> dict[str, Any]:
        dealing = self.landlord is None
        shown = self.shown
        landlord = self.landlord
        return {
            "players": SEATS,
            "phase": self.phase.value,
            "to_move": self.to_move,
            "deal_number": len(self.deals),
            "dealt": self.dealt,
            "first_bidder": self.first_bidder,
            "hand_counts": [self.visible_count(s) for s in range(SEATS)],
            "shown": {
                str(s): [str(c) for c in self._visible_hand(s)] for s in range(SEATS) if shown[s]
            },
            "shows": [{"seat": s, **show.to_json()} for s, show in self.shows],
            "bids": [{"seat": s, **bid.to_json()} for s, bid in self.bids],
            "landlord": landlord,
            "bottom": None if dealing else [str(c) for c in self.current_deal.bottom],
            "doubles": list(self.doubles) if landlord is not None else [None, None, None],
            "may_double": [self.may_double(s) for s in range(SEATS)]
            if landlord is not None
            else [False, False, False],
            "multiplier": self.multiplier,
            "multipliers": {
                "rob": 1 << self.robs,
                "show": self.show_multiplier,
                "bombs": 1 << self.bombs,
                "spring": 2 if self.spring is not None else 1,
            },
            "table": None if self.table is None else self.table.to_json(),
            "passes": self.passes,
            "plays_made": list(self.plays_made),
            "history": self._public_history() if history else [],
            "winner": self.winner,
            "spring": self.spring,
        }

    def _view_hand(self, seat: int) -> list[str]:
        return [str(c) for c in sorted(self._visible_hand(seat))]

    def view(self, seat: int | None, *, history: bool = True) -> dict[str, Any]:
        """``view_for``, under the protocol's name."""
        return self.view_for(seat, history=history)

    def _visible_hand(self, seat: int) -> tuple[Card, ...]:
        """``seat``'s cards as far as they are dealt: all of them after the deal."""
        if self.landlord is None:
            return self.current_deal.hands[seat][: self.dealt]
        return cards_from_mask(self.hands[seat])

    def _public_history(self) -> list[dict[str, Any]]:
        """Every action so far, with the number of the deal it belongs to (1 for the first)."""
        actions = self.history
        numbers, _ = deal_numbers([action for _, action in actions])
        return [
            {"seat": seat, "deal_number": number, **action.to_json()}
            for (seat, action), number in zip(actions, numbers, strict=True)
        ]

    # Identity -------------------------------------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        return (*self[:18], self.history)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        hands = " | ".join(format_cards(cards_from_mask(h)) for h in self.hands)
        return (
            f"<GameState phase={self.phase.value} to_move={self.to_move} landlord={self.landlord}"
            f" hands=[{hands}] table={self.table} multiplier={self.multiplier}"
            f" winner={self.winner}>"
        )


_SHOW_ERRORS = {
    "already": ("already_shown", "this seat's hand is shown already"),
    "late": (
        "show_too_late",
        "明牌 is declared before the bidding or, by the landlord, before the first play",
    ),
    "landlord": ("landlord_only", "after the bottom cards are taken only the landlord may 明牌"),
}


def deal_numbers(actions: Sequence[Action]) -> tuple[list[int], int]:
    """The number of the deal (1, 2 ...) each action belongs to, and of the deal after the last
    action: a deal ends, and the next begins, after three 不叫 in it with no 明牌."""
    numbers = []
    number, no_calls, shown = 1, 0, False
    for action in actions:
        numbers.append(number)
        if isinstance(action, Show):
            shown = True
        elif action == NO_CALL:
            no_calls += 1
            if no_calls == SEATS and not shown:
                number, no_calls, shown = number + 1, 0, False
        elif action == CALL:
            no_calls = -SEATS
    return numbers, number


def _next_to_double(doubles: Sequence[bool | None], landlord: int | None) -> int:
    """The first seat that has not chosen, farmers first; the landlord when all have (it leads)."""
    assert landlord is not None
    for offset in (1, 2, 0):
        seat = (landlord + offset) % SEATS
        if doubles[seat] is None:
            return seat
    return landlord


def _bidding(
    first: int, bids: Sequence[tuple[int, Bid]], first_shower: int | None
) -> tuple[str, int | None]:
    """Where the bidding stands (§2): ``("call", seat)`` or ``("rob", seat)``, the seat to say
    its word; ``("landlord", seat)``; or ``("redeal", None)``."""
    words = [bid for _, bid in bids]
    index = 0
    caller = None
    order = [(first + k) % SEATS for k in range(SEATS)]
    for seat in order:
        if index >= len(words):
            return ("call", seat)
        word = words[index]
        index += 1
        if word == CALL:
            caller = seat
            break
    if caller is None:
        if first_shower is not None:
            return ("landlord", first_shower)
        return ("redeal", None)
    said_no = set(order[: order.index(caller)])
    last = caller
    robbed = False
    for offset in (1, 2):
        seat = (caller + offset) % SEATS
        if seat in said_no:
            continue
        if index >= len(words):
            return ("rob", seat)
        if words[index] == ROB:
            last, robbed = seat, True
        index += 1
    if robbed:
        if index >= len(words):
            return ("rob", caller)
        if words[index] == ROB:
            last = caller
    return ("landlord", last)


def _check_deal(deal: Deal) -> None:
    if len(deal.hands) != SEATS:
        raise ValueError("斗地主 deals three hands")
    seen = 0
    for seat, hand in enumerate(deal.hands):
        if len(hand) != DEAL_STEPS:
            raise ValueError(f"seat {seat} must be dealt 17 cards, not {len(hand)}")
        for card in hand:
            if seen & card.bit:
                raise ValueError(f"card {card} is dealt twice")
            seen |= card.bit
    if len(deal.bottom) != 3:
        raise ValueError("there are 3 bottom cards")
    for card in deal.bottom:
        if seen & card.bit:
            raise ValueError(f"card {card} is dealt twice")
        seen |= card.bit
    if type(deal.first_bidder) is not int or not 0 <= deal.first_bidder < SEATS:
        raise ValueError("the first bidder is a seat from 0 to 2")
