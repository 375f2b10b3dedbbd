"""`ttune experiment` end to end on two small ONNX models: every mode's comparison is written,
an interrupted experiment resumes where it stopped (nothing done twice), and one results folder
refuses another host."""
import json
import os

from conftest import dense_model, ttune_cli


def run_experiment(tmp_path, models, *extra):
    return ttune_cli("experiment", "--models", ",".join(models), "--trials", 10, "--then-tune-trials", 6,
                     "--step", 1, "--threads", 2, "--out", tmp_path / "exp", *extra)


def runs(tmp_path):
    rc, out, err = ttune_cli("db", "runs", "--db", tmp_path / "exp" / "bank.db", "--json")
    assert rc == 0, err
    return json.loads(out)


def test_experiment_writes_every_mode_and_resumes_without_redoing_work(tmp_path):
    models = [dense_model(tmp_path / "left.onnx", 64, 48, seed=1), dense_model(tmp_path / "right.onnx", 96, 40, seed=2)]
    rc, out, err = run_experiment(tmp_path, models, "--json")
    assert rc == 0, err
    res = json.loads(out)
    assert set(res["models"]) == {"left", "right"}
    for name, m in res["models"].items():
        assert m["tune"]["trials"] >= 10
        for mode in ("pool", "auto", "beyond", "then-tune"):
            c = m["modes"][mode]["comparison"]
            assert c["speedup_tuned"] > 0 and c["speedup_transfer"] > 0, (name, mode)
            # Checkpoints at fractions of the transfer time (a tuning run can match sooner), then at
            # it (or at the end of a tuning run that was shorter), in time order.
            times = [cp["elapsed_s"] for cp in c["checkpoints"]]
            at = times.index(min(c["transfer_s"], c["tune_s"]))
            assert times == sorted(times) and all(t < c["transfer_s"] for t in times[:at])
            assert at == sum(1 for f in (0.125, 0.25, 0.5) if f * c["transfer_s"] < c["tune_s"])
        # Leave-one-out: each model transferred from the other only.
        assert m["modes"]["pool"]["transfer"]["sources"] == [{"left": "right", "right": "left"}[name]]
        cont = m["modes"]["then-tune"]["comparison"]
        assert cont["continued"] and cont["continued"][0]["search_s"] > cont["transfer_s"]
        assert m["modes"]["then-tune"]["from_mode"] == "beyond"
    for f in ("results.md", "results.svg", "results.json"):
        assert os.path.getsize(tmp_path / "exp" / f) > 0
    md = (tmp_path / "exp" / "results.md").read_text()
    assert "| left |" in md and "| right |" in md and "then-tune S" in md
    assert "whose tuning gain is measurable" in md
    assert "stroke-dasharray" in (tmp_path / "exp" / "results.svg").read_text()  # the transfer-then-tune curves
    before = runs(tmp_path)

    # An interruption after some steps: drop what the later steps saved, as if they never ran.
    path = tmp_path / "exp" / "results.json"
    saved = json.loads(path.read_text())
    del saved["models"]["right"]["modes"]["pool"]["comparison"]
    del saved["models"]["left"]["modes"]["then-tune"]
    path.write_text(json.dumps(saved))
    rc, out, err = run_experiment(tmp_path, models)
    assert rc == 0, err
    assert "comparing right (pool)" in err and "tuning left from its beyond transfer" in err
    assert "from scratch" not in err and "transfer-tuning" not in err  # tuning runs and transfers are not redone
    after = runs(tmp_path)
    assert len(after) == len(before) + 1  # the one then-tune run done again
    resumed = json.loads(path.read_text())
    assert "comparison" in resumed["models"]["right"]["modes"]["pool"]
    assert "comparison" in resumed["models"]["left"]["modes"]["then-tune"]


def test_one_results_folder_holds_one_host(tmp_path):
    model = dense_model(tmp_path / "m.onnx", 32, 16, seed=3)
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "results.json").write_text(json.dumps(
        {"version": 1, "host": {"cpu": "some-other-cpu", "isa": "avx2", "threads": 2, "description": "another host"},
         "models": {}}))
    rc, out, err = run_experiment(tmp_path, [model])
    assert rc != 0
    assert "one table holds one host" in err and err.count("\n") == 1


def test_basic_baseline_runs_carry_it_and_do_not_mix_with_strong_ones(tmp_path):
    models = [dense_model(tmp_path / "left.onnx", 64, 48, seed=1), dense_model(tmp_path / "right.onnx", 96, 40, seed=2)]
    rc, out, err = run_experiment(tmp_path, models, "--defaults", "basic", "--modes", "pool", "--json")
    assert rc == 0, err
    res = json.loads(out)
    assert res["defaults"] == "basic"
    for name, m in res["models"].items():
        assert m["tune"]["defaults"] == "basic" and m["modes"]["pool"]["transfer"]["defaults"] == "basic"
        c = m["modes"]["pool"]["comparison"]
        assert c["speedup_tuned"] > 0 and c["tuned_rounds"] >= 5 and c["tuned_speedup_lo"] <= c["speedup_tuned"]
    assert "Baseline: basic" in (tmp_path / "exp" / "results.md").read_text()
    # Every record of the experiment's runs says which baseline it was measured against.
    rc, out, err = ttune_cli("db", "export", "-", "--db", tmp_path / "exp" / "bank.db")
    assert rc == 0, err
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    assert lines and all(r["provenance"].get("baseline") == "basic" for r in lines)
    # A comparison against the strong defaults refuses the basic runs, in one sentence.
    rc, out, err = ttune_cli("compare", models[0], "--db", tmp_path / "exp" / "bank.db")
    assert rc != 0 and "baselines do not mix" in err and err.count("\n") == 1, err
    # So does resuming the folder with the other baseline.
    rc, out, err = run_experiment(tmp_path, models, "--modes", "pool")
    assert rc != 0 and "ran with --defaults basic" in err, err
