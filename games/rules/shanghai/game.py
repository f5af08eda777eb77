"""上海斗地主 as a state machine: the deal, 小地主/大地主, the play, the end (rules §8-§13).

It is the game's ``GameStateProtocol`` (``games.rules.protocol``). The state is immutable:
``apply(seat, action)`` returns a new state. Phases, in order (``Phase``):

``bid``
    The cards are dealt at once (``deal_from_seed``). From the seat dealt the face-up card, each
    seat says once, in seat order, 小地主 (``SMALL``), 大地主 (``BIG``) or 不叫 (``NO_BID``);
    after a 小地主 only 大地主 or 不叫; a 大地主 ends the bidding. The highest bidder is the
    landlord and takes the 8 bottom cards (shown to all). All four 不叫: the cards are dealt
    again from the deal's ``next_seed`` (``deals`` keeps every deal).
``play``
    The landlord leads; plays and passes in seat order; after three passes in a row the last
    seat that played leads. Each farmer may play as many bombs (the four-joker bomb too) as the
    bidding allows (``bombs_left``: 1 after 不叫, 2 after a 小地主 that a 大地主 topped, no limit
    for a seat whose turn never came; None is no limit); the landlord has no limit.
``over``
    ``winner`` is the seat that went out: the landlord alone, or the three farmers together, win;
    ``settle`` gives the payments (§12).

>>> state = GameState.deal(7)
>>> state.phase.value, len(state.hand(0)), len(state.bottom)
('bid', 25, 8)
>>> seat = state.to_move
>>> state = state.apply(seat, SMALL)
>>> [str(a) for a in state.legal_actions(state.to_move)]
['big', 'no-bid']
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from ..errors import IllegalMoveError
from ..history import LogNode, unwind
from ..protocol import Phase, check_turn
from ..views import seat_view
from .cards import CARDS, Card, cards_from_mask, format_cards, mask_of, parse_cards
from .combos import Combo, beats
from .movegen import legal_plays
from .moves import BIG, NO_BID, SMALL, Action, Bid, Move, Pass, Play, parse_action
from .options import STANDARD, ShanghaiRules

__all__ = [
    "BOTTOM_CARDS",
    "HAND_CARDS",
    "SEATS",
    "Deal",
    "GameState",
    "Phase",
    "TablePlay",
    "deal_from_seed",
    "deal_numbers",
    "first_bidder_of",
]

SEATS = 4
HAND_CARDS = 25
BOTTOM_CARDS = 8
_LEVEL_NAMES = (None, "small", "big")


class Deal(NamedTuple):
    """One deal: its seed (None for a deal written out by hand), each seat's 25 cards in the
    order dealt, the 8 bottom cards in the order they went down, the face-up card (None when a
    deal written by hand names none), the seat that bids first, and the seed of the next deal
    should everyone say 不叫."""

    seed: int | None
    hands: tuple[tuple[Card, ...], ...]
    bottom: tuple[Card, ...]
    face_up: Card | None
    first_bidder: int
    next_seed: int

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.seed is not None:
            data["seed"] = self.seed
        data["first_bidder"] = self.first_bidder
        if self.face_up is not None:
            data["face_up"] = str(self.face_up)
        data["hands"] = [" ".join(str(card) for card in hand) for hand in self.hands]
        data["bottom"] = " ".join(str(card) for card in self.bottom)
        return data


def deal_from_seed(seed: int) -> Deal:
    """Shuffle and deal from a seed (§8, §13).

    The 108 cards start in canonical order (3s.1 3s.2 3h.1 ... RJ.2) and are shuffled with
    ``random.Random(seed).shuffle``; the same generator then takes out the card at
    ``randrange(108)``, turns it face up and puts it back before the card at ``randrange(108)``
    of the 107 left (at the end for 107). The cards go round one at a time, seats 0 to 3, and in
    each of the first 8 rounds one more card to the bottom. The first bidder is the seat dealt the
    face-up card, or, when it went to the bottom, the seat dealt the next card. A redeal's seed is
    the generator's ``getrandbits(63)`` after that.
    """
    if type(seed) is not int or seed < 0:
        raise ValueError("a seed is a non-negative whole number")
    rng = random.Random(seed)
    deck = list(CARDS)
    rng.shuffle(deck)
    face_up = deck.pop(rng.randrange(len(deck)))
    deck.insert(rng.randrange(len(deck) + 1), face_up)
    hands: list[list[Card]] = [[] for _ in range(SEATS)]
    bottom: list[Card] = []
    cards = iter(deck)
    for round_ in range(HAND_CARDS):
        for seat in range(SEATS):
            hands[seat].append(next(cards))
        if round_ < BOTTOM_CARDS:
            bottom.append(next(cards))
    dealt_hands = tuple(tuple(hand) for hand in hands)
    first = first_bidder_of(dealt_hands, tuple(bottom), face_up)
    return Deal(seed, dealt_hands, tuple(bottom), face_up, first, rng.getrandbits(63))


def first_bidder_of(hands: Sequence[Sequence[Card]], bottom: Sequence[Card], face_up: Card) -> int:
    """The seat dealt ``face_up``; when it is a bottom card, the seat dealt the card after it
    (seat 0's next card: the bottom card ends its round)."""
    for seat, hand in enumerate(hands):
        if face_up in hand:
            return seat
    if face_up in bottom:
        return 0
    raise ValueError(f"the face-up card {face_up} is not in the deal")


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
    rules: ShanghaiRules
    deals: tuple[Deal, ...]  # every deal so far; the last is being played
    upcoming: tuple[Deal, ...]  # deals written out for the redeals to come (records, tests)
    bids: tuple[tuple[int, Bid], ...]  # the bidding of this deal, in order
    first_bidder: int
    landlord: int | None
    level: int  # 0 while bidding, 1 小地主, 2 大地主
    hands: tuple[int, ...]  # card masks by seat (the landlord's with the bottom once taken)
    bombs_left: tuple[int | None, ...]  # by seat; None: no limit
    to_move: int | None
    table: TablePlay | None
    passes: int
    bombs_played: tuple[int, ...]  # bombs (the four-joker bomb too) by seat
    plays_made: tuple[int, ...]  # plays by seat
    winner: int | None
    log: LogNode[Action] | None
    log_length: int


class GameState(_Fields):
    """A position of a game of 上海斗地主, with everything needed to go on from it."""

    __slots__ = ()

    # Construction -------------------------------------------------------------------------------

    @classmethod
    def deal(cls, seed: int, *, rules: ShanghaiRules = STANDARD) -> GameState:
        """A new game dealt from ``seed`` (see ``deal_from_seed``), at its first bid."""
        return cls.from_deal(deal_from_seed(seed), rules=rules)

    @classmethod
    def from_position(
        cls,
        hands: Sequence[str | Iterable[Card]],
        bottom: str | Iterable[Card],
        first_bidder: int,
        *,
        face_up: str | Card | None = None,
        rules: ShanghaiRules = STANDARD,
        next_seed: int = 0,
        upcoming: Sequence[Deal] = (),
    ) -> GameState:
        """A new game from hands written out (each in the order dealt) and the bottom cards."""
        if len(hands) != SEATS:
            raise ValueError("上海斗地主 deals four hands")
        cards = tuple(parse_cards(h) if isinstance(h, str) else tuple(h) for h in hands)
        bottom_cards = parse_cards(bottom) if isinstance(bottom, str) else tuple(bottom)
        face = parse_cards(face_up)[0] if isinstance(face_up, str) else face_up
        deal = Deal(None, cards, bottom_cards, face, first_bidder, next_seed)
        return cls.from_deal(deal, rules=rules, upcoming=upcoming)

    @classmethod
    def from_deal(
        cls,
        deal: Deal,
        *,
        rules: ShanghaiRules = STANDARD,
        upcoming: Sequence[Deal] = (),
    ) -> GameState:
        check_deal(deal)
        for later in upcoming:
            check_deal(later)
        return cls._make(
            (
                rules,
                (deal,),
                tuple(upcoming),
                (),
                deal.first_bidder,
                None,
                0,
                tuple(mask_of(hand) for hand in deal.hands),
                (None,) * SEATS,
                deal.first_bidder,
                None,
                0,
                (0,) * SEATS,
                (0,) * SEATS,
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
        level: int = 1,
        bombs_left: Sequence[int | None] | None = None,
    ) -> GameState:
        """A game at its first lead: ``hands`` as they are now (the landlord's with the bottom
        cards), the bidding skipped: ``level`` 1 (小地主, every farmer 1 bomb) or 2 (大地主);
        ``bombs_left`` by seat (None: 1 for each farmer at level 1, none limited at level 2).
        For tests, positions and benchmarks; such a state has no record."""
        masks = []
        seen = 0
        for hand in hands:
            mask = mask_of(parse_cards(hand) if isinstance(hand, str) else hand)
            if seen & mask:
                raise ValueError("a card is in two hands")
            seen |= mask
            masks.append(mask)
        if len(masks) != SEATS or not all(masks):
            raise ValueError("four hands of at least one card each")
        if level not in (1, 2):
            raise ValueError("the level is 1 (小地主) or 2 (大地主)")
        bottom_cards = parse_cards(bottom) if isinstance(bottom, str) else tuple(bottom)
        if mask_of(bottom_cards) & ~masks[landlord]:
            raise ValueError("the bottom cards are in the landlord's hand")
        if bombs_left is None:
            allowed = tuple(None if s == landlord or level == 2 else 1 for s in range(SEATS))
        else:
            allowed = tuple(bombs_left)
            if len(allowed) != SEATS:
                raise ValueError("bombs_left has one entry a seat")
        deal = Deal(None, tuple(cards_from_mask(m) for m in masks), bottom_cards, None, landlord, 0)
        return cls._make(
            (
                STANDARD,
                (deal,),
                (),
                (),
                landlord,
                landlord,
                level,
                tuple(masks),
                allowed,
                landlord,
                None,
                0,
                (0,) * SEATS,
                (0,) * SEATS,
                None,
                None,
                0,
            )
        )

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
            return Phase.BID
        return Phase.PLAY

    @property
    def is_terminal(self) -> bool:
        return self.winner is not None

    @property
    def current_deal(self) -> Deal:
        return self.deals[-1]

    @property
    def bottom(self) -> tuple[Card, ...]:
        return self.current_deal.bottom

    @property
    def bid(self) -> str | None:
        """``"small"`` (小地主) or ``"big"`` (大地主) once there is a landlord."""
        return _LEVEL_NAMES[self.level]

    def hand(self, seat: int) -> tuple[Card, ...]:
        """``seat``'s cards now, in canonical order. Secret."""
        return cards_from_mask(self.hands[seat])

    def hand_count(self, seat: int) -> int:
        return self.hands[seat].bit_count()

    @property
    def history(self) -> tuple[tuple[int, Action], ...]:
        """Every action so far, every deal's, oldest first, as (seat, action)."""
        return unwind(self.log)

    @property
    def round_actions(self) -> tuple[tuple[int, Move], ...]:
        """The plays and passes of the round being played, in order, from the play that led it
        (the game's first, or one after three passes in a row); none while a new round waits for
        its lead."""
        if self.table is None:
            return ()
        moves = [(seat, action) for seat, action in self.history if isinstance(action, Play | Pass)]
        start = len(moves) - 1
        while start > 0 and not (
            isinstance(moves[start][1], Play)
            and start >= SEATS - 1
            and all(isinstance(moves[start - k][1], Pass) for k in range(1, SEATS))
        ):
            start -= 1
        return tuple(moves[start:])

    # Legal actions --------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """The plays of the seat to move, the pass first when it may pass; empty outside the
        play. A farmer with no bomb left gets no bomb."""
        seat = self.to_move
        if seat is None or self.landlord is None:
            return []
        table = self.table
        return legal_plays(
            self.hands[seat],
            None if table is None else table.combo,
            bombs=self.bombs_left[seat] != 0,
        )

    def legal_actions(self, seat: int) -> list[Action]:
        """Everything ``seat`` may do now, in a fixed order: while bidding ``small`` (when no
        小地主 was said), ``big``, ``no-bid``; in the play, ``legal_moves()``."""
        if type(seat) is not int or seat != self.to_move:
            return []
        if self.landlord is None:
            return [BIG, NO_BID] if self._highest_bid() else [SMALL, BIG, NO_BID]
        return list(self.legal_moves())

    def is_legal(self, seat: int, action: Action) -> bool:
        try:
            self.resolve(seat, action)
        except IllegalMoveError:
            return False
        return True

    def resolve(self, seat: int, action: Action, *, strict: bool = False) -> Action:
        """``action`` by ``seat`` as it counts here, or ``IllegalMoveError`` with a stable code
        (see ``docs/record-format.md``). While bidding the pass is 不叫; a play naming cards of
        the other deck than the seat holds (``As.2`` for its ``As.1``) counts as the seat's own
        copies. ``strict`` changes nothing: a multiset of ranks is one combination at most."""
        check_turn(seat, self.to_move)
        if self.landlord is None:
            if isinstance(action, Pass):
                return NO_BID
            if not isinstance(action, Bid):
                raise IllegalMoveError("wrong_phase", "cards are played after the bidding")
            if action == SMALL and self._highest_bid():
                raise IllegalMoveError("wrong_bid", "after a 小地主 only 大地主 or 不叫")
            return action
        if isinstance(action, Bid):
            raise IllegalMoveError("wrong_phase", "the bidding is over")
        if isinstance(action, Pass):
            if self.table is None:
                raise IllegalMoveError(
                    "leader_must_play", f"seat {seat} leads this round and may not pass"
                )
            return action
        if not isinstance(action, Play):
            raise IllegalMoveError("not_an_action", f"{action!r} is not an action")
        hand = self.hands[seat]
        if action.mask & ~hand:
            mask = _own_copies(action.mask, hand)
            if mask is None:
                missing = action.mask & ~hand
                raise IllegalMoveError(
                    "cards_not_in_hand",
                    f"seat {seat} does not hold {format_cards(cards_from_mask(missing))}",
                )
            action = Play.from_mask(mask)
        combo = action.combo
        if combo is None:
            raise IllegalMoveError("not_a_combination", f"{action} is not a combination")
        table = self.table
        if table is not None and not beats(combo, table.combo):
            raise IllegalMoveError(
                "does_not_beat", f"{action} ({combo}) does not beat {table.combo} on the table"
            )
        if combo.is_bomb and self.bombs_left[seat] == 0:
            raise IllegalMoveError(
                "bomb_limit", f"seat {seat} has played every bomb the bidding allows it"
            )
        return action

    def _highest_bid(self) -> int:
        return max((bid.level for _, bid in self.bids), default=0)

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
        assert isinstance(action, Bid)
        return self._after_bid(seat, action, log, length)

    def apply_text(self, seat: int, text: str) -> GameState:
        return self.apply(seat, parse_action(text))

    def _after_bid(self, seat: int, bid: Bid, log: LogNode[Action], length: int) -> GameState:
        bids = (*self.bids, (seat, bid))
        stage, who = bidding(self.first_bidder, bids)
        if stage == "bid":
            return self._replace(bids=bids, to_move=who, log=log, log_length=length)
        if stage == "redeal":
            if self.upcoming:
                deal, upcoming = self.upcoming[0], self.upcoming[1:]
            else:
                deal, upcoming = deal_from_seed(self.current_deal.next_seed), ()
            return self._replace(
                deals=(*self.deals, deal),
                upcoming=upcoming,
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
        return self._replace(
            bids=bids,
            landlord=who,
            level=max(b.level for _, b in bids),
            hands=tuple(hands),
            bombs_left=bomb_allowances(bids, who),
            to_move=who,
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
        changes: dict[str, Any] = {}
        if play.combo.is_bomb:
            played = list(self.bombs_played)
            played[seat] += 1
            changes["bombs_played"] = tuple(played)
            left = self.bombs_left[seat]
            if left is not None:
                allowed = list(self.bombs_left)
                allowed[seat] = left - 1
                changes["bombs_left"] = tuple(allowed)
        finished = not hands[seat]
        return self._replace(
            hands=tuple(hands),
            to_move=None if finished else (seat + 1) % SEATS,
            table=TablePlay(seat, play),
            passes=0,
            plays_made=tuple(plays),
            winner=seat if finished else None,
            log=log,
            log_length=length,
            **changes,
        )

    # Views ----------------------------------------------------------------------------------------

    def view_for(self, seat: int | None, *, history: bool = True) -> dict[str, Any]:
        """What ``seat`` may see, JSON-safe: its own hand, every seat's card count, the face-up
        card, the bids, the bottom once the landlord has it, every seat's bombs left (None: no
        limit), the table; never a seed, another hand or a later deal. ``None``: a spectator."""
        if seat is not None and not (type(seat) is int and 0 <= seat < SEATS):
            raise ValueError(f"no seat {seat!r} in a game of 4")
        return seat_view(
            self, seat, history=history, public=self._public_view, hand=self._view_hand
        )

    def _public_view(self, history: bool) -> dict[str, Any]:
        bidding_now = self.landlord is None
        face_up = self.current_deal.face_up
        return {
            "players": SEATS,
            "phase": self.phase.value,
            "to_move": self.to_move,
            "deal_number": len(self.deals),
            "first_bidder": self.first_bidder,
            "face_up": None if face_up is None else str(face_up),
            "hand_counts": [h.bit_count() for h in self.hands],
            "bids": [{"seat": s, **bid.to_json()} for s, bid in self.bids],
            "landlord": self.landlord,
            "bid": self.bid,
            "bottom": None if bidding_now else [str(c) for c in self.bottom],
            "bombs_left": list(self.bombs_left),
            "bombs_played": list(self.bombs_played),
            "table": None if self.table is None else self.table.to_json(),
            "passes": self.passes,
            "plays_made": list(self.plays_made),
            "history": self._public_history() if history else [],
            "winner": self.winner,
        }

    def _view_hand(self, seat: int) -> list[str]:
        return [str(c) for c in cards_from_mask(self.hands[seat])]

    def view(self, seat: int | None, *, history: bool = True) -> dict[str, Any]:
        """``view_for``, under the protocol's name."""
        return self.view_for(seat, history=history)

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
        return (*self[:15], self.history)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        hands = " | ".join(format_cards(cards_from_mask(h)) for h in self.hands)
        return (
            f"<GameState phase={self.phase.value} to_move={self.to_move} landlord={self.landlord}"
            f" bid={self.bid} hands=[{hands}] table={self.table} winner={self.winner}>"
        )


def _own_copies(mask: int, hand: int) -> int | None:
    """``mask`` with each card taken from the seat's own copies of it (the lowest), or None
    when the hand lacks one."""
    out = 0
    rest = mask
    while rest:
        low = rest & -rest
        pair = (low.bit_length() - 1) >> 1
        shift = 2 * pair
        want = ((mask >> shift) & 3).bit_count()
        have = (hand >> shift) & 3
        if have.bit_count() < want:
            return None
        out |= (have if want == 2 else have & -have) << shift
        rest &= ~(3 << shift)
    return out


def bidding(first: int, bids: Sequence[tuple[int, Bid]]) -> tuple[str, int | None]:
    """Where the bidding stands (§9, §13): ``("bid", seat)``, the seat to speak next;
    ``("landlord", seat)``; or ``("redeal", None)`` when all four said 不叫."""
    highest, landlord = 0, None
    for index, (_, bid) in enumerate(bids):
        seat = (first + index) % SEATS
        if bid.level > highest:
            highest, landlord = bid.level, seat
        if bid == BIG:
            return ("landlord", seat)
    if len(bids) < SEATS:
        return ("bid", (first + len(bids)) % SEATS)
    if landlord is None:
        return ("redeal", None)
    return ("landlord", landlord)


def bomb_allowances(bids: Sequence[tuple[int, Bid]], landlord: int) -> tuple[int | None, ...]:
    """Bombs each seat may play (§11, §13): a farmer that said 不叫 1, 小地主 2, a farmer whose
    turn never came and the landlord no limit (None)."""
    said = {seat: bid for seat, bid in bids}
    allowed: list[int | None] = []
    for seat in range(SEATS):
        bid = said.get(seat)
        if seat == landlord or bid is None:
            allowed.append(None)
        else:
            allowed.append(2 if bid == SMALL else 1)
    return tuple(allowed)


def deal_numbers(actions: Sequence[Action]) -> tuple[list[int], int]:
    """The number of the deal (1, 2 ...) each action belongs to, and of the deal after the last
    action: a deal ends, and the next begins, after four 不叫 in it."""
    numbers = []
    number, no_bids = 1, 0
    for action in actions:
        numbers.append(number)
        if action == NO_BID:
            no_bids += 1
            if no_bids == SEATS:
                number, no_bids = number + 1, 0
        elif isinstance(action, Bid):
            no_bids = -SEATS
    return numbers, number


def check_deal(deal: Deal) -> None:
    """``ValueError`` unless ``deal`` is 4 hands of 25 cards and 8 bottom cards, each card once,
    whose first bidder is the face-up card's (when it names one)."""
    if len(deal.hands) != SEATS:
        raise ValueError("上海斗地主 deals four hands")
    seen = 0
    for seat, hand in enumerate(deal.hands):
        if len(hand) != HAND_CARDS:
            raise ValueError(f"seat {seat} must be dealt 25 cards, not {len(hand)}")
        for card in hand:
            if seen & card.bit:
                raise ValueError(f"card {card} is dealt twice")
            seen |= card.bit
    if len(deal.bottom) != BOTTOM_CARDS:
        raise ValueError("there are 8 bottom cards")
    for card in deal.bottom:
        if seen & card.bit:
            raise ValueError(f"card {card} is dealt twice")
        seen |= card.bit
    if type(deal.first_bidder) is not int or not 0 <= deal.first_bidder < SEATS:
        raise ValueError("the first bidder is a seat from 0 to 3")
    if deal.face_up is not None and (
        first_bidder_of(deal.hands, deal.bottom, deal.face_up) != deal.first_bidder
    ):
        raise ValueError(f"the face-up card {deal.face_up} does not make that first bidder")
