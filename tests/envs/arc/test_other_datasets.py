"""Folders in ConceptARC's layout (a folder per concept, three test inputs per task) and
MiniARC's (a flat folder of 5x5 tasks) load, play and score; the tests write small
folders of that shape (the real corpora are not on this machine)."""

import json

import numpy as np

import gridax
import gridax.testing
from gridax.envs import arc


def grid(rng, size):
    return rng.integers(0, 10, size).tolist()


def write_conceptarc(root, rng):
    """corpus/<Concept>/<Concept><n>.json: 1-4 demonstrations and 3 test inputs each."""
    for concept in ("AboveBelow", "Center", "InsideOutside"):
        (root / concept).mkdir(parents=True)
        for n in (1, 2):
            pairs = [
                {"input": grid(rng, (3, 4)), "output": grid(rng, (4, 3))}
                for _ in range(int(rng.integers(1, 5)) + 3)
            ]
            task = {"train": pairs[:-3], "test": pairs[-3:]}
            (root / concept / f"{concept}{n}.json").write_text(json.dumps(task))


def write_miniarc(root, rng):
    """A flat folder of tasks on 5x5 grids, named <name>_<id>.json."""
    root.mkdir()
    for n in range(4):
        pairs = [{"input": grid(rng, (5, 5)), "output": grid(rng, (5, 5))} for _ in range(4)]
        task = {"train": pairs[:3], "test": pairs[3:]}
        (root / f"rule_{n}_l6ab{n}.json").write_text(json.dumps(task))


def test_a_conceptarc_corpus_loads_with_every_test_input(tmp_path):
    write_conceptarc(tmp_path / "corpus", np.random.default_rng(0))
    tasks = arc.load_tasks(tmp_path / "corpus")
    assert len(tasks) == 6 and tasks.task_ids[0] == "AboveBelow/AboveBelow1"
    assert tasks.num_test.tolist() == [3] * 6 and tasks.test_inputs.shape[1] == 3
    evaluation = arc.evaluate(arc.Oracle(tasks), tasks)
    assert evaluation.score.score == 1.0 and len(evaluation.attempts["Center/Center2"]) == 3
    env = gridax.make("ArcFolder-v0", path=tmp_path / "corpus", mode="eval")
    assert env.observation_space.spaces["pair_index"].high == 2  # three test inputs
    gridax.testing.check_env(env, num_envs=2, num_steps=3)


def test_a_miniarc_folder_loads_5x5_tasks(tmp_path):
    write_miniarc(tmp_path / "MiniARC", np.random.default_rng(1))
    tasks = arc.load_tasks(tmp_path / "MiniARC")
    assert len(tasks) == 4 and tasks.task_ids[0] == "rule_0_l6ab0"
    assert {tuple(s) for s in np.asarray(tasks.train_input_shapes).reshape(-1, 2)} == {(5, 5)}
    assert arc.evaluate(arc.Oracle(tasks), tasks).score.score == 1.0
