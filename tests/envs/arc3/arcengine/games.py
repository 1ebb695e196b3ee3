"""The gridax ARC-AGI-3 games written against ARC Prize's engine (`arcengine`, Python
3.12+), as an independent reference: levels come from gridax as plain data
(``gridax.envs.arc3.engine.game.to_json``), the rules are written here again the arcengine way.

    python tests/envs/arc3/arcengine/games.py LEVELS.json EPISODES.json

plays each episode (a list of [action id, x, y]) on a fresh game and prints JSON: per
episode, per action, the frames it made (rows of hex digits), the game state, levels
completed, the level index and the full-reset flag after it. With ``--time``, it prints
the seconds each episode's ``perform_action`` calls took instead.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from arcengine import (
    ActionInput,
    ARCBaseGame,
    Camera,
    GameAction,
    Level,
    RenderableUserDisplay,
    Sprite,
)
from engine_cases import engine_sprite  # beside this script, which Python runs from here

MOVES = {1: (0, -1), 2: (0, 1), 3: (-1, 0), 4: (1, 0)}


def levels_of(data: dict) -> list[Level]:
    return [
        Level(
            sprites=[engine_sprite(s) for s in level["sprites"]],
            grid_size=None if level["grid_size"] is None else tuple(level["grid_size"]),
            name=level["name"],
        )
        for level in data["levels"]
    ]


class Display(RenderableUserDisplay):
    """A UI layer drawn by a function of the frame (in place)."""

    def __init__(self, draw):
        self.draw = draw

    def render_interface(self, frame: np.ndarray) -> np.ndarray:
        self.draw(frame)
        return frame


class Reference(ARCBaseGame):
    """A gridax game on arcengine: its levels, camera and actions from gridax's JSON
    (``to_json``), each level's starting memory (a dict by name) in ``self.memory``;
    ``draw_ui``, where a game has one, draws its UI layer."""

    def __init__(self, data: dict):
        self.memory = [level["memory"] for level in data["levels"]]
        x, y, width, height = data["camera"]
        interfaces = [Display(self.draw_ui)] if hasattr(self, "draw_ui") else []
        super().__init__(
            game_id=data["name"].lower(),
            levels=levels_of(data),
            camera=Camera(x, y, width, height, data["background"], data["letterbox"], interfaces),
            available_actions=data["available_actions"],
        )


class Keys(Reference):
    """Walk to the exit; walking into a key picks it up, into a door with a key opens it."""

    def on_set_level(self, level: Level) -> None:
        self.keys_held = 0

    def draw_ui(self, frame: np.ndarray) -> None:
        """Keys held: 2x2 yellow squares from the top-left corner, 3 pixels apart."""
        for k in range(min(self.keys_held, 4)):
            frame[1:3, 1 + 3 * k : 3 + 3 * k] = 11

    def step(self) -> None:
        move = MOVES.get(self.action.id.value)
        if move is not None:
            player = self.current_level.get_sprites_by_name("player")[0]
            hit = self.try_move_sprite(player, *move)
            keys = [s for s in hit if s.name == "key"]
            self.keys_held += len(keys)
            opened = [s for s in hit if s.name == "door"][: self.keys_held]
            self.keys_held -= len(opened)
            cleared = keys + opened
            for sprite in cleared:
                self.current_level.remove_sprite(sprite)
            blockers = [s for s in hit if s not in cleared and s.name != "exit"]
            if cleared and not blockers:
                player.move(*move)
            if any(s.name == "exit" for s in hit):
                self.next_level()
        self.complete_action()


class Push(Reference):
    """Push boxes onto every target; a box moves if nothing is behind it."""

    def step(self) -> None:
        move = MOVES.get(self.action.id.value)
        if move is not None:
            level = self.current_level
            player = level.get_sprites_by_name("player")[0]
            hit = self.try_move_sprite(player, *move)
            if len(hit) == 1 and hit[0].name == "box" and not self.try_move_sprite(hit[0], *move):
                player.move(*move)
            boxes = {(b.x, b.y) for b in level.get_sprites_by_name("box")}
            if all((t.x, t.y) in boxes for t in level.get_sprites_by_name("target")):
                self.next_level()
        self.complete_action()


class Lights(Reference):
    """Click a cell to cycle it and its four neighbours; all cells in the first colour
    within the budget of clicks."""

    PALETTE = (3, 14, 11)

    def on_set_level(self, level: Level) -> None:
        start = self.memory[self.level_index]
        self.moves_left, self.colours = start["moves_left"], start["colours"]

    def draw_ui(self, frame: np.ndarray) -> None:
        """Moves left: a bar along the bottom row, two pixels a move."""
        frame[63, : max(2 * self.moves_left, 0)] = 9

    def step(self) -> None:
        if self.action.id.value == 6:
            self.moves_left -= 1
            level = self.current_level
            cell = self.camera.display_to_grid(self.action.data["x"], self.action.data["y"])
            if cell is not None and level.get_sprite_at(*cell) is not None:
                x, y = cell
                for dx, dy in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
                    sprite = level.get_sprite_at(x + dx, y + dy)
                    if sprite is not None:
                        state = self.PALETTE.index(int(sprite.pixels[0, 0]))
                        sprite.pixels[0, 0] = self.PALETTE[(state + 1) % self.colours]
            done = all(s.pixels[0, 0] == self.PALETTE[0] for s in level.get_sprites())
            if done:
                self.next_level()
            elif self.moves_left <= 0:
                self.lose()
        self.complete_action()


class Glue(Reference):
    """Walk into parts to merge them with the player, carry them, detach them (ACTION5)
    with a part on every socket."""

    def on_set_level(self, level: Level) -> None:
        start = self.memory[self.level_index]
        self.player_x, self.player_y = start["player_x"], start["player_y"]
        self.carried: list[Sprite] = []

    def step(self) -> None:
        level = self.current_level
        player = level.get_sprites_by_name("player")[0]
        move = MOVES.get(self.action.id.value)
        if move is not None:
            hit = self.try_move_sprite(player, *move)
            if not hit:
                self.player_x += move[0]
                self.player_y += move[1]
                for part in self.carried:
                    part.move(*move)
            parts = [s for s in hit if s.name == "part"]
            if parts:
                merged = player
                for part in parts:
                    merged = merged.merge(part)
                    level.remove_sprite(part)
                level.remove_sprite(player)
                level.add_sprite(merged)
                self.carried += parts
        elif self.action.id.value == 5 and self.carried:
            level.remove_sprite(player)
            alone = Sprite([[9]], name="player", x=self.player_x, y=self.player_y, layer=1)
            level.add_sprite(alone)
            for part in self.carried:
                level.add_sprite(part)
            self.carried = []
        parts = {(p.x, p.y) for p in level.get_sprites_by_name("part")}
        if all((s.x, s.y) in parts for s in level.get_sprites_by_name("socket")):
            self.next_level()
        self.complete_action()


class Explore(Reference):
    """Collect every gem of a world larger than the screen; the camera follows."""

    VIEW = 10

    def on_set_level(self, level: Level) -> None:
        self.follow()

    def draw_ui(self, frame: np.ndarray) -> None:
        """Gems left: one dot every two pixels along the top row."""
        left = len(self.current_level.get_sprites_by_name("gem"))
        for k in range(min(left, 8)):
            frame[0, 1 + 2 * k] = 11

    def follow(self) -> None:
        start = self.memory[self.level_index]
        width, height = start["world_width"], start["world_height"]
        player = self.current_level.get_sprites_by_name("player")[0]
        self.camera.x = min(max(player.x - self.VIEW // 2, 0), width - self.VIEW)
        self.camera.y = min(max(player.y - self.VIEW // 2, 0), height - self.VIEW)

    def step(self) -> None:
        move = MOVES.get(self.action.id.value)
        if move is not None:
            level = self.current_level
            player = level.get_sprites_by_name("player")[0]
            self.try_move_sprite(player, *move)
            for gem in level.get_sprites_by_name("gem"):
                if (gem.x, gem.y) == (player.x, player.y):
                    level.remove_sprite(gem)
            self.follow()
            if not level.get_sprites_by_name("gem"):
                self.next_level()
        self.complete_action()


class Undoable(Reference):
    """A game with ACTION7: before each other action (these games' actions take one
    step) its level's sprites, camera and memory (``memory_names``) are saved,
    ``UNDO_DEPTH`` at most; ACTION7 restores the last save in one frame. A new level or a
    reset starts with none."""

    UNDO_DEPTH = 32
    memory_names: tuple[str, ...] = ()

    def on_set_level(self, level: Level) -> None:
        self.saved: list[tuple] = []

    def save(self) -> tuple:
        camera = self.camera
        view = (camera.x, camera.y, camera.width, camera.height)
        memory = tuple(getattr(self, name) for name in self.memory_names)
        return [s.clone() for s in self.current_level.get_sprites()], view, memory

    def restore(self, saved: tuple) -> None:
        sprites, (x, y, width, height), memory = saved
        level = self.current_level
        level.remove_all_sprites()
        for sprite in sprites:
            level.add_sprite(sprite)
        self.camera.x, self.camera.y = x, y
        self.camera.resize(width, height)
        for name, value in zip(self.memory_names, memory, strict=True):
            setattr(self, name, value)

    def step(self) -> None:
        if self.action.id.value == 7:
            if self.saved:
                self.restore(self.saved.pop())
            self.complete_action()
            return
        self.saved = (self.saved + [self.save()])[-self.UNDO_DEPTH :]
        self.play()

    def play(self) -> None:
        raise NotImplementedError


class Crumble(Undoable):
    """Walk over every floor cell once; the cell left crumbles into a hole."""

    memory_names = ("floor_left",)

    def on_set_level(self, level: Level) -> None:
        super().on_set_level(level)
        self.floor_left = self.memory[self.level_index]["floor_left"]

    def play(self) -> None:
        move = MOVES.get(self.action.id.value)
        if move is not None:
            level = self.current_level
            player = level.get_sprites_by_name("player")[0]
            x, y = player.x, player.y
            if not self.try_move_sprite(player, *move):
                level.get_sprites_by_name("holes")[0].pixels[y, x] = 0
                self.floor_left -= 1
                if self.floor_left == 1:
                    self.next_level()
        self.complete_action()


def play(game: ARCBaseGame, actions: list[list[int]]) -> list[dict]:
    record = []
    for action_id, x, y in actions:
        data = {"x": x, "y": y} if action_id == 6 else {}
        out = game.perform_action(
            ActionInput(id=GameAction.from_id(action_id), data=data), raw=True
        )
        record.append(
            {
                "action": [action_id, x, y],
                "frames": [["".join(f"{int(v):x}" for v in row) for row in f] for f in out.frame],
                "state": game._state.value,
                "levels_completed": game._score,
                "level": game.level_index,
                "full_reset": out.full_reset,
            }
        )
    return record


def seconds_to_play(game: ARCBaseGame, actions: list[list[int]]) -> float:
    """Wall time of ``perform_action`` (raw frames, the engine's own work) over ``actions``."""
    inputs = [
        ActionInput(id=GameAction.from_id(a), data={"x": x, "y": y} if a == 6 else {})
        for a, x, y in actions
    ]
    started = time.perf_counter()
    for action in inputs:
        game.perform_action(action, raw=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("levels", type=Path, help="the game, as gridax's arc3.to_json")
    parser.add_argument("episodes", type=Path, help="a JSON list of episodes of [id, x, y]")
    parser.add_argument("--time", action="store_true", help="print seconds per episode instead")
    args = parser.parse_args()
    data = json.loads(args.levels.read_text())
    sequences = json.loads(args.episodes.read_text())
    game = globals()[data["name"]]  # the class named as the game
    if args.time:
        print(json.dumps({"seconds": [seconds_to_play(game(data), a) for a in sequences]}))
        return
    episodes = [play(game(data), actions) for actions in sequences]
    print(json.dumps({"game": data["name"], "episodes": episodes}))


if __name__ == "__main__":
    main()
