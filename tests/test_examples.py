"""Smoke-sized runs of the examples: they run end to end and print what they promise."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import jax
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while defining classes
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("env", ["ForagaxTwoBiome-v1", "arc-copy"])
def test_ppo_smoke(env, tmp_path, capsys):
    pytest.importorskip("optax")
    ppo = load("ppo")
    # The example runs under the default promotion rules its users have.
    with jax.numpy_dtype_promotion("standard"):
        ppo.main(["--env", env, "--seeds", "0", "--total-steps", "4096", "--num-envs", "16",
                  "--out", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert "random:" in out and "trained:" in out and "reward per step by seed" in out
    assert (tmp_path / f"ppo-{env}.png").stat().st_size > 0


@pytest.mark.ci_only
def test_behaviour_cloning_with_context_smoke(tmp_path, capsys):
    bc = load("bc_context")
    with jax.numpy_dtype_promotion("standard"):
        results = bc.main(["--minutes", "0.05", "--train-tasks", "4", "--eval-tasks", "4",
                           "--batch-size", "8", "--families", "copy,translate",
                           "--arc-tasks", "3", "--out", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert "families at 0.5 or more" in out and "(3 tasks), arc.evaluate: score" in out
    assert set(results["families"]) == {"copy", "translate"}
    assert (tmp_path / "results.json").exists()


def test_natural_examples_are_the_demonstrations_steps():
    bc = load("bc_context")
    obs, actions = bc.natural_examples("flip_horizontal", bc.np.arange(3) + 1)
    # One flip of the live grid per task, then its submit: two steps each.
    assert actions.operation.tolist() == [26, 26, 26, 34, 34, 34]
    assert obs.step_count.tolist() == [0, 0, 0, 1, 1, 1]
    assert (obs.context.mask.sum(axis=1) == 2).all()  # the played pair is masked out


def test_ppo_gae_matches_a_python_loop():
    import numpy as np

    ppo = load("ppo")
    rng = np.random.default_rng(0)
    value, reward = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    done = rng.random((5, 3)) < 0.3
    last = rng.normal(size=3)
    advantage, target = ppo.gae(value, reward, done, last, 0.9, 0.8)
    expected, running, next_value = np.zeros((5, 3)), np.zeros(3), last
    for t in reversed(range(5)):
        live = 1.0 - done[t]
        delta = reward[t] + 0.9 * next_value * live - value[t]
        running = delta + 0.9 * 0.8 * live * running
        expected[t], next_value = running, value[t]
    np.testing.assert_allclose(advantage, expected, rtol=1e-5)
    np.testing.assert_allclose(target, expected + value, rtol=1e-5)


ADVANCED = {
    "jax_optimization_demo": ["traces so far: 1", "2 traces", "scan", "from the cache"],
    "batch_processing_demo": ["(independent)", "four copies of one env", "env-steps/s"],
    "memory_efficiency_demo": ["history_length=10", "save_state", "re-attaches the grids"],
    "jax_best_practices_demo": [
        "ValueError: ArcConfig.selection_format",
        "invalid_action=True",
        "EQX_ON_ERROR=raise -> EquinoxRuntimeError: invalid action: operation id outside 0-34",
        "EQX_ON_ERROR=nan   -> reward nan, working grid unchanged: True",
        "vmap(step) == batch_step: True",
    ],
}


@pytest.mark.parametrize("name", sorted(ADVANCED))
def test_advanced_demo_runs_and_shows_what_it_promises(name):
    # Each in its own process: the demos set JAX options (the compilation cache).
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / "advanced" / f"{name}.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for expected in ADVANCED[name]:
        assert expected in result.stdout, result.stdout


def load_continual():
    """examples/continual/protocol.py, which imports its sibling agents.py."""
    sys.path.insert(0, str(EXAMPLES / "continual"))
    try:
        spec = importlib.util.spec_from_file_location(
            "protocol", EXAMPLES / "continual" / "protocol.py"
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules["protocol"] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(EXAMPLES / "continual"))


@pytest.mark.ci_only
def test_continual_protocol_smoke(tmp_path, capsys):
    protocol = load_continual()
    import numpy as np

    with jax.numpy_dtype_promotion("standard"):
        arguments = ["--quick", "--worlds", "ForagaxTwoBiome-v1", "--out", str(tmp_path)]
        results = protocol.main(arguments)
    out = capsys.readouterr().out
    assert "protocol done in" in out and "sweep ForagaxTwoBiome-v1 dqn step size 0.003" in out
    runs = results["evaluation"]["ForagaxTwoBiome-v1"]
    agents = ("dqn", "ppo", "recurrent ppo")
    assert set(runs) == {*agents, *(f"{a} frozen at 2,560" for a in agents), "random"}
    for curves in runs.values():
        for values in curves.values():
            assert values.shape == (2, 10) and np.isfinite(values).all()
    # The frozen copies share the seeds: identical until they freeze (log point 5 ends at
    # step 2,560, the last step that still learns), then free to differ.
    for name in agents:
        learning, frozen = runs[name], runs[f"{name} frozen at 2,560"]
        np.testing.assert_array_equal(learning["reward"][:, :5], frozen["reward"][:, :5])
        assert not np.array_equal(learning["reward"][:, 5:], frozen["reward"][:, 5:])
    assert (tmp_path / "ForagaxTwoBiome-v1.png").stat().st_size > 0
    assert (tmp_path / "curves.csv").read_text().count("\n") == 1 + 7 * 2 * 10
    assert "ForagaxTwoBiome-v1" in (tmp_path / "results.json").read_text()


@pytest.fixture
def standard_promotion():
    # The examples run under the default promotion rules their users have.
    with jax.numpy_dtype_promotion("standard"):
        yield


def test_dqn_replay_wraps_and_target_follows_every_128_steps(standard_promotion):
    load_continual()
    import numpy as np

    agents = sys.modules["agents"]
    dqn = agents.DQN(num_features=3)
    state = dqn.init(jax.random.key(0))
    for i in range(1_003):  # three past the buffer's 1,000: the oldest are overwritten
        step = (np.full(3, i, np.float32), i % 4, float(i), np.full(3, i + 1, np.float32))
        state = dqn.remember(state, step)
    assert int(state.replay.count) == 1_003
    assert state.replay.reward[:4].tolist() == [1_000.0, 1_001.0, 1_002.0, 3.0]
    learning = jax.numpy.bool_(True)
    for update in range(1, 33):  # an update every 4 steps: the target refreshes at 32
        state = dqn.update(state, jax.random.key(update), learning)
        same = jax.tree.map(lambda a, b: bool((a == b).all()), state.online, state.target)
        assert all(jax.tree.leaves(same)) == (update == 32)
    frozen = dqn.update(state, jax.random.key(99), jax.numpy.bool_(False))
    assert all(
        jax.tree.leaves(
            jax.tree.map(lambda a, b: bool((a == b).all()), frozen.online, state.online)
        )
    )


def test_rejax_trains_on_forage_through_gymnax_env_unmodified(tmp_path):
    """A third-party trainer, unchanged: rejax's PPO on ForagaxTwoBiome-v1 beats the
    random policy within a small budget (65,536 steps; seconds here)."""
    pytest.importorskip("rejax")
    example = load("rejax_forage")
    with jax.numpy_dtype_promotion("standard"):  # rejax runs under the default rules
        result = example.main(["--total-steps", "65536", "--seeds", "1", "--out", str(tmp_path)])
    (curve,) = result["mean_reward"]
    assert curve[-1] > result["random_mean_reward"] + 0.3, result
    assert curve[-1] > curve[0]
    assert (tmp_path / "rejax-forage.png").stat().st_size > 0


def test_plr_replays_its_buffer_and_dr_never_does(standard_promotion):
    """examples/ued: jaxued's LevelSampler starts replaying once its buffer is half full
    (eight levels of sixteen: after the first rollout), and learns only from replays;
    domain randomisation plays new levels every update."""
    pytest.importorskip("jaxued")
    import numpy as np

    plr_arc = load("ued/plr_arc")
    settings = plr_arc.Settings(num_envs=8, num_steps=10, total_steps=8 * 10 * 6, buffer=16)
    for method in ("plr", "dr"):
        train, _ = plr_arc.make_train(method, settings)
        _, metrics = jax.jit(train)(jax.random.key(0))
        replayed = np.asarray(metrics["replayed"])
        assert replayed.shape == (6,) and not replayed[0]
        assert replayed[1:].any() if method == "plr" else not replayed.any()
        assert int(np.asarray(metrics["episodes"]).sum()) >= 6 * 8  # one a rollout or more


@pytest.mark.ci_only
def test_plr_vs_dr_smoke(tmp_path, capsys, standard_promotion):
    pytest.importorskip("jaxued")
    plr_arc = load("ued/plr_arc")
    out = tmp_path / "plr-vs-dr"
    results = plr_arc.main(["--steps", "1280", "--eval-seeds", "4", "--families", "copy",
                            "--out", str(out)])  # fmt: skip
    assert set(results) == {"dr", "plr", "random"}
    assert all(set(r["held_out"]) == {"copy"} for r in results.values())
    assert "copy" in capsys.readouterr().out
    assert out.with_suffix(".png").stat().st_size > 0 and out.with_suffix(".json").exists()


def test_arc3_agent_heads(standard_promotion):
    """The click's x and y count only for a CLICK; ids off the mask are never drawn."""
    import numpy as np

    agent = load("arc3/ppo_arc3")
    mask = jax.numpy.array([False, False, False, False, False, False, True, False])
    policy = agent.FramePolicy(jax.random.key(0))
    frame = jax.numpy.zeros((64, 64), jax.numpy.int8)
    heads, _ = policy((frame, mask))
    choices = agent.sample_choice(jax.random.key(1), [jax.numpy.stack([h] * 256) for h in heads])
    assert (np.asarray(choices[:, 0]) == 6).all()
    click, _ = agent.click_log_prob_and_entropy(heads, jax.numpy.array([6, 3, 5]))
    np.testing.assert_allclose(click, heads[0][6] + heads[1][3] + heads[2][5], rtol=1e-6)
    ids = jax.numpy.where(mask.at[1].set(True), 0.0, agent.MASKED)
    uniform = [jax.nn.log_softmax(h) for h in (ids, jax.numpy.zeros(64), jax.numpy.zeros(64))]
    key_press, entropy = agent.click_log_prob_and_entropy(uniform, jax.numpy.array([1, 3, 5]))
    np.testing.assert_allclose(key_press, np.log(0.5), rtol=1e-6)  # x and y do not count
    np.testing.assert_allclose(entropy, np.log(2) + 0.5 * 2 * np.log(64), rtol=1e-5)


def test_arc3_agent_convolution_as_matmul():
    """The policy's 3x3 stride-2 convolution, done as patches and a matmul, is one."""
    import numpy as np

    agent = load("arc3/ppo_arc3")
    x = jax.random.normal(jax.random.key(0), (16, 16, 5))
    kernel = jax.random.normal(jax.random.key(1), (3, 3, 5, 7))  # [dy, dx, in, out]
    expected = jax.lax.conv_general_dilated(
        x[None], kernel, (2, 2), ((1, 1), (1, 1)), dimension_numbers=("NHWC", "HWIO", "NHWC")
    )[0]
    patches = agent.stride_2_patches(x)
    assert patches.shape == (8, 8, 45)
    np.testing.assert_allclose(patches @ kernel.reshape(45, 7), expected, rtol=1e-4, atol=1e-4)


def test_arc3_agent_frame_buckets():
    """The exploration bonus's frame counts: a frame's bucket is the same wherever it is
    met, one changed pixel (of any colour, 0 included) moves it, and it fits the table."""
    import numpy as np

    agent = load("arc3/ppo_arc3")
    frame = jax.random.randint(jax.random.key(0), (64, 64), 0, 16).astype(jax.numpy.int8)
    frames = jax.numpy.stack(
        [frame, frame.at[5, 7].set((frame[5, 7] + 1) % 16), frame, frame.at[0, 0].set(0)]
    )
    buckets = np.asarray(agent.frame_buckets(frames, 20))
    assert buckets[0] == buckets[2] and buckets[0] != buckets[1]
    assert (buckets < 2**20).all() and (buckets[3] != buckets[0]) == (frame[0, 0] != 0)
    many = jax.random.randint(jax.random.key(1), (4096, 64, 64), 0, 16)
    assert len(np.unique(agent.frame_buckets(many, 20))) > 4080  # few collisions


def test_arc3_agent_smoke(tmp_path, standard_promotion):
    agent = load("arc3/ppo_arc3")
    settings = agent.Settings(
        num_envs=4, num_steps=8, updates_per_chunk=2, episode_steps=6, novelty=0.1
    )
    weights, record = agent.train("cn04", settings, minutes=0, seed=0)
    assert record["steps"] == 2 * 4 * 8 and len(record["curve"]["episodes"]) == 2
    assert 1 <= record["curve"]["frames_seen"][0] <= record["curve"]["frames_seen"][1] <= 64
    assert sum(record["curve"]["episodes"]) >= 4  # every env ended an episode of 6 actions
    result = {"seed": 0, "settings": agent.dataclasses.asdict(settings), "training": record}
    for name, played in (("ppo", weights), ("random", None)):
        result[name] = agent.evaluate("cn04", played, episodes=4, steps=6, seed=1)
        assert result[name]["level_1_baseline"] == 16 and 0 <= result[name]["score"] <= 115
    (tmp_path / "cn04.json").write_text(json.dumps(result))
    table = agent.report(tmp_path, ["cn04", "vc33"])  # vc33 has no results: no row
    assert table.count("\n") == 2 and table.splitlines()[-1].startswith("| cn04 | 64 steps")
    assert (tmp_path / "cn04.png").stat().st_size > 0 and "level 1 cleared" in agent.summary(result)
