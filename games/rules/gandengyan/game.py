"""The game of 干瞪眼 as a state machine: deal, rounds, passing, drawing, the end of the game.

It is the game's ``GameStateProtocol`` (``games.rules.protocol``). The state is immutable:
``apply(seat, move)`` returns a new state and leaves this one as it was. A move is legal exactly
when it is made by the seat to move and is in ``legal_moves()`` (up to the choice of suits, which
never matters); ``apply`` checks both and raises ``IllegalMoveError`` with a stable code otherwise
(``not_your_turn`` for a seat that is not to move).

House rules come with the state (``rules``): they decide the meanings, what beats what and the
lone joker. With ``lone_joker_last`` off, a hand of one joker can only pass, even when it leads:
such a pass starts no round, the next seat leads and nobody draws. When every hand is a lone joker
and nobody will draw again (two seats), the deal ends at once with no winner (``is_terminal``
with ``winner`` None): nobody pays.

>>> state = GameState.from_position(["3s 4h 5d 6c 7s 8h", "9s 9h Tc Jd Qs", "5s 6h Ks 2d BJ"],
...                                 stock="Ad 6s 7h", dealer=0)
>>> state = state.apply(0, parse_move("3s 4h 5d")).apply(1, PASS)
>>> [str(m) for m in state.legal_moves()]
['pass', '5s 6h BJ = 4 5 6']
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from ..cards import (
    BLACK_JOKER,
    CARDS,
    RED_JOKER,
    Card,
    Rank,
    cards_from_mask,
    format_cards,
    parse_cards,
)
from ..errors import AmbiguousPlayError, IllegalMoveError
from ..history import LogNode, unwind
from ..protocol import Phase
from ..views import seat_view
from .combos import SINGLE, Combo, beats, interpretations, meanings, next_rank
from .movegen import follow_plays, lead_plays, ruled_follow_plays, ruled_lead_plays
from .moves import PASS, Move, Pass, Play, parse_move
from .options import STANDARD, GandengyanRules

__all__ = ["GameState", "Phase", "TablePlay", "deal_from_seed"]

_SINGLE_JOKER_MASKS = (BLACK_JOKER.bit, RED_JOKER.bit)
_JOKER_MASK = BLACK_JOKER.bit | RED_JOKER.bit
_AMBIGUOUS = "these cards can be played in more than one way"


class TablePlay(NamedTuple):
    """The combination on the table and the seat that played it."""

    seat: int
    play: Play

    @property
    def combo(self) -> Combo:
        assert self.play.combo is not None
        return self.play.combo

    @property
    def wild(self) -> bool:
        """Whether one joker stands in the combination (the rocket is no wildcard play)."""
        return _is_wild(self.play.mask)

    def to_json(self) -> dict[str, Any]:
        combo = self.combo
        return {
            "seat": self.seat,
            "cards": format_cards(self.play.cards),
            "kind": combo.kind.value,
            "rank": None if combo.rank is None else int(combo.rank),
        }


def deal_from_seed(
    seed: int, rules: GandengyanRules = STANDARD, dealer: int | None = None
) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], int]:
    """Shuffle and deal from a seed: (hands by seat, stock top first, dealer).

    The deck starts in canonical order (3s 3h 3d 3c 4s ... 2c BJ RJ) and is shuffled with
    ``random.Random(seed).shuffle``; the same generator then picks the dealer with ``randrange``
    when none is given (the first game at a table). The dealer takes the first 6 cards, each next
    seat in turn the next 5, and the rest is the stock, top first.
    """
    if type(seed) is not int or seed < 0:
        raise ValueError("a seed is a non-negative whole number")
    rng = random.Random(seed)
    deck = list(CARDS)
    rng.shuffle(deck)
    if dealer is None:
        dealer = rng.randrange(rules.players)
    elif not 0 <= dealer < rules.players:
        raise ValueError(f"dealer must be a seat from 0 to {rules.players - 1}")
    hands: list[tuple[Card, ...]] = [()] * rules.players
    position = 0
    for offset, size in enumerate(rules.deal_sizes):
        hands[(dealer + offset) % rules.players] = tuple(deck[position : position + size])
        position += size
    return tuple(hands), tuple(deck[position:]), dealer


class _Fields(NamedTuple):
    """A state's data, as an immutable tuple: fast to build, which ``apply()`` does every move."""

    rules: GandengyanRules
    dealer: int
    hands: tuple[int, ...]  # bit masks of cards, by seat
    start_hands: tuple[int, ...]
    stock: tuple[int, ...]  # card indexes, top first; the part from stock_position on is left
    stock_position: int
    to_move: int | None
    table: TablePlay | None
    passes: int  # consecutive passes since the last play
    multiplier: int
    plays_made: tuple[int, ...]  # plays by seat, for spring
    winner: int | None
    # The actions so far as a persistent linked list, newest first: (previous, seat, move). Each
    # apply() adds one node in O(1); ``history`` turns it into a tuple when asked.
    log: LogNode[Move] | None
    log_length: int
    round_start: int  # how many actions came before this round


class GameState(_Fields):
    """A position of a game of 干瞪眼, with everything needed to go on from it."""

    __slots__ = ()

    # Construction -----------------------------------------------------------------------------

    @classmethod
    def deal(
        cls, seed: int, *, dealer: int | None = None, rules: GandengyanRules = STANDARD
    ) -> GameState:
        """A new game shuffled and dealt from ``seed`` (see ``deal_from_seed``)."""
        hands, stock, dealer = deal_from_seed(seed, rules, dealer)
        return cls.from_position(hands, stock, dealer, rules=rules)

    @classmethod
    def from_position(
        cls,
        hands: Sequence[str | Iterable[Card]],
        stock: str | Iterable[Card],
        dealer: int,
        *,
        rules: GandengyanRules = STANDARD,
    ) -> GameState:
        """A new game from explicit hands and stock (top first); the dealer leads."""
        if len(hands) != rules.players:
            raise ValueError(f"there must be {rules.players} hands, one per seat")
        if type(dealer) is not int or not 0 <= dealer < rules.players:
            raise ValueError(f"dealer must be a seat from 0 to {rules.players - 1}")
        seen = 0
        masks = []
        for seat, hand in enumerate(hands):
            cards = parse_cards(hand) if isinstance(hand, str) else tuple(hand)
            if not cards:
                raise ValueError(f"seat {seat} has no cards")
            mask = 0
            for card in cards:
                if (seen | mask) & card.bit:
                    raise ValueError(f"card {card} is dealt twice")
                mask |= card.bit
            seen |= mask
            masks.append(mask)
        stock_cards = parse_cards(stock) if isinstance(stock, str) else tuple(stock)
        for card in stock_cards:
            if seen & card.bit:
                raise ValueError(f"card {card} is dealt twice")
            seen |= card.bit
        if masks[dealer] in _SINGLE_JOKER_MASKS and stock_cards and rules.lone_joker_last:
            # Unreachable in play (a round's winner draws before leading), and a dead end here.
            raise ValueError("the dealer cannot lead with a lone joker while the stock has cards")
        stalled = _stalled(rules, masks, None, len(stock_cards))
        return cls._make(
            (
                rules,
                dealer,
                tuple(masks),
                tuple(masks),
                tuple(card.index for card in stock_cards),
                0,
                None if stalled else dealer,
                None,
                0,
                1,
                (0,) * rules.players,
                None,
                None,
                0,
                0,
            )
        )

    # Reading the position -----------------------------------------------------------------------

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def current_player(self) -> int | None:
        return self.to_move

    @property
    def phase(self) -> Phase:
        return Phase.PLAY if self.to_move is not None else Phase.OVER

    @property
    def is_terminal(self) -> bool:
        """Whether the game is over: a seat went out (``winner``), or, under
        ``lone_joker_last: false``, the deal stalled with no winner."""
        return self.to_move is None

    def hand(self, seat: int) -> tuple[Card, ...]:
        return cards_from_mask(self.hands[seat])

    def hand_count(self, seat: int) -> int:
        return self.hands[seat].bit_count()

    @property
    def stock_count(self) -> int:
        return len(self.stock) - self.stock_position

    def stock_cards(self) -> tuple[Card, ...]:
        """The cards left in the stock, top first. Secret: never show it to a player."""
        return tuple(CARDS[i] for i in self.stock[self.stock_position :])

    def starting_hand(self, seat: int) -> tuple[Card, ...]:
        return cards_from_mask(self.start_hands[seat])

    def starting_stock(self) -> tuple[Card, ...]:
        return tuple(CARDS[i] for i in self.stock)

    @property
    def history(self) -> tuple[tuple[int, Move], ...]:
        """Every action so far, oldest first, as (seat, move)."""
        return unwind(self.log)

    @property
    def round_actions(self) -> tuple[tuple[int, Move], ...]:
        """The actions of the current round, oldest first, as (seat, move): the newest part of
        ``history``, read without walking the rest."""
        return unwind(self.log, self.log_length - self.round_start)

    @property
    def leader(self) -> int | None:
        """Who leads (or led) the current round."""
        if self.round_start < self.log_length:
            return self.round_actions[0][0]
        return self.to_move

    # Legal moves ---------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every distinct legal action of the player to move, in a fixed order: pass first (when
        allowed), then plays by kind, length and rank (see ``movegen``)."""
        seat = self.to_move
        if seat is None:
            return []
        stock_empty = self.stock_position >= len(self.stock)
        table = self.table
        rules = self.rules
        if table is None:
            if rules.standard_play:
                return lead_plays(self.hands[seat], stock_empty)
            leads = ruled_lead_plays(self.hands[seat], stock_empty, rules)
            return leads if leads else [PASS]  # a lone joker that may not be played
        assert table.play.combo is not None
        moves: list[Move] = [PASS]
        if rules.standard_play:
            moves += follow_plays(self.hands[seat], table.play.combo, stock_empty)
        else:
            moves += ruled_follow_plays(
                self.hands[seat], table.play.combo, stock_empty, rules, table.play.mask
            )
        return moves

    def legal_actions(self, seat: int) -> list[Move]:
        """``legal_moves()`` when ``seat`` is to move; nothing for any other seat."""
        if seat != self.to_move or type(seat) is not int:
            return []
        return self.legal_moves()

    def is_legal(self, seat: int, move: Move) -> bool:
        """Whether ``seat`` may make ``move`` now."""
        try:
            self.resolve(seat, move)
        except IllegalMoveError:
            return False
        return True

    def resolve(self, seat: int, move: Move, *, strict: bool = False) -> Move:
        """``seat``'s move as it counts here (a play gets its meaning), or ``IllegalMoveError``:
        ``game_over`` once the game is over, ``not_your_turn`` when another seat is to move.

        A play that names no meaning takes the one the rules give it (leading, the lowest;
        following, the one that beats). With ``strict``, a play whose cards have more than one
        legal meaning here raises ``AmbiguousPlayError`` (``choose_meaning``) with them instead:
        for a person's move, which should say what it means."""
        return self._resolve(seat, move, strict)

    def _resolve(self, seat: int, move: Move, strict: bool) -> Move:
        # ``resolve`` without a keyword-only parameter: CPython specialises calls to such
        # functions only, and ``apply`` calls this on every move. The ambiguity check is a
        # function of its own for the same reason: it costs the usual path nothing there.
        to_move = self.to_move
        # The usual case, the very int object of the seat to move, costs two identity tests; the
        # full check (a bool or a float is no seat) runs only otherwise.
        if to_move is None or (seat is not to_move and (seat != to_move or type(seat) is not int)):
            raise IllegalMoveError.out_of_turn(seat, to_move)
        table = self.table
        if isinstance(move, Pass):
            if table is None and not self._may_pass_lead(seat):
                raise IllegalMoveError(
                    "leader_must_play", f"seat {seat} leads this round and may not pass"
                )
            return move
        if not isinstance(move, Play):
            raise IllegalMoveError("not_a_move", f"{move!r} is not a move")
        hand = self.hands[seat]
        missing = move.mask & ~hand
        if missing:
            raise IllegalMoveError(
                "cards_not_in_hand",
                f"seat {seat} does not hold {format_cards(cards_from_mask(missing))}",
            )
        found = self._meanings(move.mask, hand)
        if not found:
            raise IllegalMoveError(
                "not_a_combination", f"{format_cards(move.cards)} is not a combination"
            )
        chosen = move.combo
        # The standard rules' beats takes two combos; house rules also ask about wildcards.
        standard = self.rules.standard_play
        if chosen is not None:
            if chosen not in found:
                raise IllegalMoveError(
                    "meaning_not_possible",
                    f"{format_cards(move.cards)} cannot be played as {chosen.ranks_text()}",
                )
            if table is not None and not (
                beats(chosen, table.combo) if standard else self._beats(chosen, move.mask)
            ):
                raise IllegalMoveError(
                    "does_not_beat",
                    f"{format_cards(move.cards)} as {chosen} does not beat {table.combo} "
                    "on the table",
                )
            return move
        if strict:
            self._check_one_meaning(found, move.mask)
        if table is None:
            return move.with_combo(found[0])
        for meaning in found:
            if beats(meaning, table.combo) if standard else self._beats(meaning, move.mask):
                return move.with_combo(meaning)
        raise IllegalMoveError(
            "does_not_beat", f"{format_cards(move.cards)} does not beat {table.combo} on the table"
        )

    def _beats(self, combo: Combo, mask: int) -> bool:
        """Whether ``combo``, played with the cards ``mask``, beats the table under the rules."""
        table = self.table
        assert table is not None
        return beats(
            combo,
            table.combo,
            self.rules,
            play_wild=_is_wild(mask),
            table_wild=_is_wild(table.play.mask),
        )

    def _check_one_meaning(self, meanings: Sequence[Combo], mask: int) -> None:
        """``AmbiguousPlayError`` when more than one of ``meanings`` may be played here (leading,
        when any may)."""
        legal = [m for m in meanings if self.table is None or self._beats(m, mask)]
        if len(legal) > 1:
            raise AmbiguousPlayError(_AMBIGUOUS, [meaning.ranks_text() for meaning in legal])

    def _may_pass_lead(self, seat: int) -> bool:
        """A leader may pass only with a lone joker that ``lone_joker_last: false`` forbids."""
        return not self.rules.lone_joker_last and self.hands[seat] in _SINGLE_JOKER_MASKS

    def _meanings(self, mask: int, hand: int) -> tuple[Combo, ...]:
        if mask in _SINGLE_JOKER_MASKS:
            if not self.rules.lone_joker_last:
                raise IllegalMoveError(
                    "lone_joker", "a joker may never be played alone under these rules"
                )
            if hand != mask or self.stock_position < len(self.stock):
                raise IllegalMoveError(
                    "lone_joker",
                    "a joker may be played alone only as the last card, when the stock is empty",
                )
            return (self._lone_joker_meaning(),)
        rules = self.rules
        return interpretations(mask) if rules.standard_play else meanings(mask, rules)

    def _lone_joker_meaning(self) -> Combo:
        """A lone last joker counts as the single it needs: the lowest when leading, one higher
        than the table's single when following (a 2 on an A). It cannot follow a single 2."""
        if self.table is None:
            return SINGLE[Rank.THREE]
        combo = self.table.combo
        if combo.kind is not SINGLE[Rank.THREE].kind or combo.rank is Rank.TWO:
            raise IllegalMoveError(
                "does_not_beat", f"a lone joker cannot beat {combo} on the table"
            )
        assert combo.rank is not None
        higher = next_rank(combo.rank)
        if higher is None and self.rules.joker_not_two:
            raise IllegalMoveError(
                "does_not_beat", "a lone joker cannot count as a 2 under these rules"
            )
        return SINGLE[higher or Rank.TWO]

    # Applying moves ------------------------------------------------------------------------------

    def apply(self, seat: int, move: Move) -> GameState:
        """The state after ``seat`` makes ``move``; raises ``IllegalMoveError`` when it is not
        that seat's turn (``not_your_turn``) or the move is not legal."""
        return self._apply_resolved(self._resolve(seat, move, False))

    def apply_text(self, seat: int, text: str) -> GameState:
        return self.apply(seat, parse_move(text))

    def _apply_resolved(self, move: Move) -> GameState:
        """Apply a move that ``resolve`` returned. Unchecked: never call it with anything else."""
        (
            rules,
            dealer,
            hands,
            start_hands,
            stock,
            stock_position,
            seat,
            table,
            passes,
            multiplier,
            plays_made,
            _,
            log,
            length,
            round_start,
        ) = self
        assert seat is not None
        players = len(hands)
        log = (log, seat, move)
        length += 1
        if move is PASS:
            to_move: int | None
            if table is None:  # a lone joker's pass as leader: the next seat leads, no draws
                to_move = (seat + 1) % players
                if _stalled(rules, hands, None, len(stock) - stock_position):
                    to_move = None
                lead_passed = (
                    rules,
                    dealer,
                    hands,
                    start_hands,
                    stock,
                    stock_position,
                    to_move,
                    None,
                    0,
                    multiplier,
                    plays_made,
                    None,
                    log,
                    length,
                    length,
                )
                return _tuple_new(GameState, lead_passed)
            passes += 1
            if passes < players - 1:
                to_move = (seat + 1) % players
            else:  # the round is over: draws, and its winner leads the next
                assert table is not None
                to_move = table.seat
                hands, stock_position = self._draw(to_move)
                table, passes, round_start = None, 0, length
                if not rules.lone_joker_last and _stalled(
                    rules, hands, None, len(stock) - stock_position
                ):
                    to_move = None
            fields = (
                rules,
                dealer,
                hands,
                start_hands,
                stock,
                stock_position,
                to_move,
                table,
                passes,
                multiplier,
                plays_made,
                None,
                log,
                length,
                round_start,
            )
            return _tuple_new(GameState, fields)
        assert isinstance(move, Play) and move.combo is not None
        hands_list = list(hands)
        hands_list[seat] ^= move.mask
        plays_list = list(plays_made)
        plays_list[seat] += 1
        bomb_class = move.combo.bomb_class
        if bomb_class:
            multiplier *= (2, 4, rules.rocket_multiplier)[bomb_class - 1]
        finished = not hands_list[seat]
        stalled = not rules.lone_joker_last and _stalled(
            rules, hands_list, move, len(stock) - stock_position
        )
        after_play = (
            rules,
            dealer,
            tuple(hands_list),
            start_hands,
            stock,
            stock_position,
            None if finished or stalled else (seat + 1) % players,
            _tuple_new(TablePlay, (seat, move)),
            0,
            multiplier,
            tuple(plays_list),
            seat if finished else None,
            log,
            length,
            round_start,
        )
        return _tuple_new(GameState, after_play)

    def _draw(self, round_winner: int) -> tuple[tuple[int, ...], int]:
        """Round-end draws: one card each from the stock, round winner first, while it lasts."""
        hands = list(self.hands)
        stock, position = self.stock, self.stock_position
        players = len(hands)
        drawers = players if self.rules.draw == "all" else 1
        for offset in range(drawers):
            if position >= len(stock):
                break
            hands[(round_winner + offset) % players] |= 1 << stock[position]
            position += 1
        return tuple(hands), position

    # Views ---------------------------------------------------------------------------------------

    def view_for(self, seat: int | None, *, history: bool = True) -> dict[str, Any]:
        """What ``seat`` may see, JSON-safe: its own hand, never another's, nor the stock's order.
        ``rules`` holds the house rules that differ from the standard game (``{}``: none).

        ``seat=None`` is a spectator's view, with no hand at all. ``history=False`` leaves out
        the list of every action so far (``history`` is then empty), for a caller that shows
        only the current round and need not build the whole game's list each time.
        """
        if seat is not None and not (type(seat) is int and 0 <= seat < len(self.hands)):
            raise ValueError(f"no seat {seat!r} in a game of {len(self.hands)}")
        return seat_view(
            self, seat, history=history, public=self._public_view, hand=self._view_hand
        )

    def _public_view(self, history: bool) -> dict[str, Any]:
        view: dict[str, Any] = {
            "players": len(self.hands),
            "phase": self.phase.value,
            "dealer": self.dealer,
            "to_move": self.to_move,
            "leader": self.leader,
            "hand_counts": [hand.bit_count() for hand in self.hands],
            "stock": self.stock_count,
            "table": None if self.table is None else self.table.to_json(),
            "passes": self.passes,
            "multiplier": self.multiplier,
            "history": [{"seat": s, **move.to_json()} for s, move in self.history]
            if history
            else [],
            "round_start": self.round_start,
            "winner": self.winner,
            "rules": self.rules.to_dict(),
        }
        if self.table is not None:
            view["table"]["as"] = self.table.combo.ranks_text()
        return view

    def _view_hand(self, seat: int) -> list[str]:
        return [str(card) for card in cards_from_mask(self.hands[seat])]

    def view(self, seat: int | None, *, history: bool = True) -> dict[str, Any]:
        """``view_for``, under the protocol's name."""
        return self.view_for(seat, history=history)

    # Identity ------------------------------------------------------------------------------------

    def _key(self) -> tuple[Any, ...]:
        return (*self[:12], self.history, self.log_length, self.round_start)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        hands = " | ".join(format_cards(cards_from_mask(h)) for h in self.hands)
        return (
            f"<GameState to_move={self.to_move} hands=[{hands}] stock={self.stock_count} "
            f"table={self.table} multiplier={self.multiplier} winner={self.winner}>"
        )


_tuple_new = tuple.__new__


def _is_wild(mask: int) -> bool:
    """One joker among the cards of a play (the rocket's two are no wildcard)."""
    jokers = mask & _JOKER_MASK
    return bool(jokers) and jokers != _JOKER_MASK


def _stalled(rules: GandengyanRules, hands: Sequence[int], table: object, stock_left: int) -> bool:
    """Under ``lone_joker_last: false``: every hand is a lone joker, which can never be played,
    and nobody will draw again (no round is going on, or the stock is empty). Only two seats can
    get there; the deal then ends with no winner."""
    if rules.lone_joker_last:
        return False
    if not all(hand in _SINGLE_JOKER_MASKS for hand in hands):
        return False
    return table is None or stock_left == 0
