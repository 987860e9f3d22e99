"""make grade's machine-readable results: the results.json of Gradescope's
autograder format (also read by other autograders), beside the printed
score.  One entry per part, with its score, its maximum and, when it lost
points, the lines the grader printed about it.

    https://gradescope-autograders.readthedocs.io/en/latest/specs/
"""
import json
import os


def gradescope(lab, arch, results, elapsed_s):
    """The results.json dictionary of a grade (results: grading.PartResult)."""
    tests = []
    for number, res in enumerate(results, 1):
        part = res.part
        smp = part.get("smp")
        tests.append({
            "number": str(number),
            "name": f"{lab['NAME']}: {part['name']}",
            "tags": [part["id"]] + ([f"SMP={n}" for n in smp] if smp else ["AArch64"]),
            "score": res.points,
            "max_score": res.possible,
            "status": "failed" if res.failed else "passed",
            "output": "\n".join(res.message()) or "OK",
        })
    score = sum(r.points for r in results)
    total = sum(r.possible for r in results)
    return {
        "score": score,
        "execution_time": round(elapsed_s),
        "output": f"lab {lab['NAME']} on {arch}: {score}/{total}",
        "extra_data": {"lab": lab["NAME"], "arch": arch, "max_score": total},
        "tests": tests,
    }


def write(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)
