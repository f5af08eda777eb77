"""Reads of games: the record, the state, the replay and its verdict, access, disputes."""

from __future__ import annotations

import hashlib
import random

import pytest
from django.contrib.auth.models import AnonymousUser

from accounts.models import User
from games import selectors, services
from games.bots import SensiblePolicy, choose_for
from games.models import Dispute, Game, Table
from games.presentation.gandengyan import play_hints, play_meanings
from games.rules import format_cards, parse_cards
from games.rules.gandengyan import GameRecord, GameState, GandengyanRules, Play, deal_from_seed
from tests.games.helpers import play_out, start_from_position

pytestmark = pytest.mark.django_db

SEED = 2**255 + 12345


@pytest.fixture
def game(table: Table, trio: list[User]) -> Game:
    return services.game_start(table=table, players=trio, seed=SEED)


def test_the_record_hides_the_seed_until_the_end(game: Game) -> None:
    play_out(game, seed=4, stop_before_end=True)
    game.refresh_from_db()
    record = selectors.game_record(game=game)
    assert game.status == Game.Status.PLAYING
    assert "seed" not in record
    assert record["meta"]["seed_commitment"] == game.seed_commitment
    assert GameRecord.from_json(record).replay().ok

    play_out(game, seed=4)
    game.refresh_from_db()
    record = selectors.game_record(game=game)
    assert game.status == Game.Status.FINISHED
    seed = record["seed"]
    assert seed == SEED
    assert hashlib.sha256(seed.to_bytes(32, "big")).hexdigest() == game.seed_commitment
    rules = GandengyanRules.from_dict(record["rules"])
    hands, stock, dealer = deal_from_seed(seed, rules)  # the first game: the seed chose the dealer
    assert dealer == record["dealer"]
    assert [set(h) for h in hands] == [set(parse_cards(h)) for h in record["hands"]]
    assert list(stock) == list(parse_cards(record["stock"]))
    # The engine reads the record and checks the seed against the deal itself.
    result = GameRecord.from_json(record).replay()
    assert result.ok and result.settlement is not None
    assert result.settlement.to_json() == {
        key: game.result[key] for key in ("winner", "multiplier", "spring", "payments")
    }


def test_the_record_format(game: Game) -> None:
    services.game_act(game=game, seat=game.dealer, action=_first_lead(game))
    record = selectors.game_record(game=game)
    assert record["format"] == "gandengyan-record/1"
    assert record["rules"] == {} and record["base"] == 400
    assert record["hands"] == game.hands and record["stock"] == game.stock
    assert record["actions"][0]["seat"] == game.dealer
    assert len(record["actions"]) == 1


def _first_lead(game: Game) -> dict[str, object]:
    move = selectors.game_state(game=game).legal_moves()[0]
    return dict(move.to_json())


def test_game_state_follows_the_events(game: Game) -> None:
    events = play_out(game, seed=2, stop_before_end=True)
    state = selectors.game_state(game=game)
    assert state.log_length == len(events)
    assert not state.is_terminal
    assert [seat for seat, _ in state.history] == [event.seat for event in events]


def test_replay_steps_and_verdict(game: Game) -> None:
    events = play_out(game, seed=9)
    game.refresh_from_db()
    replay = selectors.game_replay_steps(game=game)
    assert replay.ok, replay.checks
    assert {check.code for check in replay.checks} == {
        "record",
        "commitment",
        "actions",
        "result",
        "ledger",
    }
    assert len(replay.steps) == len(events) + 1
    deal = replay.steps[0]
    assert deal.action is None and deal.details["kind"] == "deal"
    assert deal.details["hands"] == tuple(game.hands) and deal.details["stock"] == 38
    for step, event in zip(replay.steps[1:], events, strict=True):
        assert step.number == event.number and step.seat == event.seat
        assert step.action == event.action
        assert step.details["kind"] == ("pass" if "pass" in event.action else "play")
        assert len(step.details["hands"]) == len(step.views) == 3
        # Staff see every seat's view; the public view holds no hand.
        assert [view["seat"] for view in step.views] == [0, 1, 2] and "hand" not in step.public
    last = replay.steps[-1]
    assert last.details["winner"] == game.winner and last.details["hands"][game.winner] == ""
    assert replay.settlement is not None
    assert replay.settlement["payments"] == game.result["payments"]
    # Every card is somewhere at every step: the hands, the stock, or played.
    played = previous_stock = 0
    for step in replay.steps:
        details = step.details
        if details["kind"] == "play":
            played += len(details["cards"].split())
        in_hands = sum(len(hand.split()) for hand in details["hands"])
        assert in_hands + details["stock"] + played == 54
        drawn = sum(len(cards.split()) for cards in details["drawn"])
        assert drawn == (0 if step.number == 0 else previous_stock - details["stock"])
        previous_stock = details["stock"]


def test_the_verdict_notices_a_tampered_result(game: Game) -> None:
    play_out(game, seed=9)
    game.refresh_from_db()
    result = dict(game.result)
    result["payments"] = [p * 2 for p in result["payments"]]
    Game.objects.filter(pk=game.pk).update(result=result)
    game.refresh_from_db()
    replay = selectors.game_replay_steps(game=game)
    assert not replay.ok
    failed = {check.code for check in replay.checks if not check.ok}
    assert failed == {"result"}


def test_the_verdict_notices_a_seed_that_does_not_deal_the_cards(game: Game) -> None:
    play_out(game, seed=9)
    Game.objects.filter(pk=game.pk).update(seed=f"{SEED + 1:064x}")
    game.refresh_from_db()
    replay = selectors.game_replay_steps(game=game)
    assert not replay.ok
    assert [check.code for check in replay.checks if not check.ok] == ["record"]


def test_a_game_without_a_seed_replays(table: Table, trio: list[User]) -> None:
    game = start_from_position(
        table=table, players=trio, hands=["3s 6s 9c", "4h 8h", "5d 7d 9d"], stock="", dealer=0
    )
    play_out(game, seed=1)
    game.refresh_from_db()
    assert "seed" not in selectors.game_record(game=game)
    replay = selectors.game_replay_steps(game=game)
    assert replay.ok and "commitment" not in {check.code for check in replay.checks}


def test_who_may_see_a_game(game: Game, trio: list[User], outsider: User, staff: User) -> None:
    assert selectors.game_get_for_viewer(user=trio[0], game_id=game.pk) == game
    assert selectors.game_get_for_viewer(user=staff, game_id=game.pk) == game
    assert selectors.game_get_for_viewer(user=outsider, game_id=game.pk) is None
    assert selectors.game_get_for_viewer(user=AnonymousUser(), game_id=game.pk) is None
    assert selectors.game_get_for_viewer(user=trio[0], game_id=game.pk + 1000) is None
    assert list(selectors.games_of_user(user_id=trio[1].pk)) == [game]
    assert list(selectors.games_of_user(user_id=outsider.pk)) == []


def test_the_dispute_queue(game: Game, trio: list[User], staff: User) -> None:
    play_out(game, seed=1)
    game.refresh_from_db()
    first = services.dispute_open(user=trio[0], game=game, reason="one")
    second = services.dispute_open(user=trio[1], game=game, reason="two")
    third = services.dispute_open(user=trio[2], game=game, reason="three")
    services.dispute_reject(dispute=second, staff=staff, note="no")
    assert list(selectors.disputes_open()) == [first, third]
    ordered = list(selectors.disputes_for_admin().order_by("open_first", "created_at", "id"))
    assert ordered == [first, third, second]
    assert [d.status for d in ordered] == [Dispute.Status.OPEN, Dispute.Status.OPEN, "rejected"]
    assert list(selectors.disputes_of_player(game=game, user_id=trio[1].pk)) == [second]


@pytest.mark.django_db(databases=[])
@pytest.mark.parametrize("seed", range(6))
def test_hints_offer_the_bots_choice_first_then_every_other_play_once(seed: int) -> None:
    rng = random.Random(seed)
    state = GameState.deal(seed)
    checked = 0
    while not state.is_terminal:
        hints = play_hints(state)
        plays = [move for move in state.legal_moves() if isinstance(move, Play)]
        choice = choose_for(state, SensiblePolicy())
        if not plays:
            assert hints == []
        else:
            offered = [frozenset(parse_cards(hint["cards"])) for hint in hints]
            # Every set of cards that can be played, once each; each hint a legal meaning of it.
            assert len(offered) == len(set(offered))
            assert set(offered) == {frozenset(move.cards) for move in plays}
            for hint in hints:
                assert hint["as"] in play_meanings(state, Play(parse_cards(hint["cards"])))
            if isinstance(choice, Play):
                assert hints[0] == {
                    "cards": format_cards(choice.cards),
                    "as": choice.combo.ranks_text(),
                }
            checked += 1
        state = state.apply(state.to_move, rng.choice(state.legal_moves()))
    assert checked > 5
