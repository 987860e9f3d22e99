"""What a student repository (make handout) leaves out, besides the
reference bodies of the lab's functions (tools/labs/defs/NAME.py).

    INSTRUCTOR_ONLY   paths (files or folders) no handout ships
    PASSAGES[lab]     (doc, first line, the line that follows the passage):
                      passages that state the lab's answer outright; each is
                      replaced by a note (NOTE, or the passage's own fourth
                      element; {lab} is the lab's name).  The second
                      line None: to the end of the file.  EVERY_LAB: the
                      same, in every handout.  The passage runs from the first
                      line that starts with the first string to the first
                      line after it that starts with the second.
    PML[lab]          Spin models (tools/model/*.pml) that model the lab's
                      functions step by step

The ARMv8 models (tools/model/armv8/*.wmm) that carry a barrier of the
lab's functions are left out without a list: handout.py finds them by the
function tools/model/barriers.tsv names for each barrier.  The design
narrative the handouts send students to stays (docs/rcu.md's sections, the
walkthrough): it says what the code must do, not the code.  handout.py
check greps every handout for the reference's own lines, whatever this
file says.
"""

INSTRUCTOR_ONLY = [
    "docs/labs/INSTRUCTOR.md",      # answers, mistakes, exam questions
    "docs/lecture",                 # the lecture's slides and their notes
    "tools/handout",                # this tool: it reads the reference
    "tools/slides.py",              # make slides: the lecture's renderer
    "tools/tests/test_handout.py",  # the tests of both
    "tools/labs/ci.sh",             # grades every lab's reference
    "tools/labs/wrong",             # wrong solutions, as patches of the reference
    "tools/labs/wrong.py",          # and the tool that grades them
]

# A note replaces each passage; {lab} is the lab's name.
NOTE = ("*[This passage narrates the reference solution of lab `{lab}`, which this "
        "repository leaves to you (docs/labs/{lab}.md).  It comes back with the "
        "solution: ask your instructor.]*")

_MODEL_MD_MACHINERY = ("docs/model.md",
                       "### 2. The kernel's access sequences on ARMv8",
                       "## The barrier tables")

# In every handout: what the docs say of the reference and of the
# instructor's files, which a student repository does not hold.
EVERY_LAB = [
    ("docs/labs/README.md", "## When you are done", None,
     "A student repository (`make handout`) holds no reference to compare "
     "your code with, and no instructor's guide: your instructor has them.  "
     "`make grade` says what your code does; the handout's \"going further\" "
     "questions ask about the choices."),
    ("README.md", "`make clean`, and the labs:", "Everything works with `ARCH=aarch64` too.",
     "`make clean`, and this repository's lab: `make grade` (`docs/labs/{lab}.md`)."),
]

PASSAGES = {
    "publish": [
        ("docs/rcu.md", "## Publish and subscribe", "## `synchronize_rcu()`: the article's two lines"),
        ("docs/walkthrough.md", "### `gp` and `struct foo`", "- `make run DEMO=publish`"),
        ("docs/walkthrough.md", "`kernel/rcu/rculist.h` is Linux's API, written for this kernel.",
         "- `make run DEMO=list_publish`"),
        ("docs/walkthrough.md", "Note how `list_del_rcu()` leaves", "Quick Quizzes 2 and 3"),
    ],
    "call_rcu": [
        _MODEL_MD_MACHINERY,
    ],
    "idle": [
        ("docs/rcu.md", "- an idle CPU is in an extended quiescent state",
         "- `gp_seq` starts 300 grace periods"),
        _MODEL_MD_MACHINERY,
    ],
    "preempt": [
        ("docs/rcu.md", "Both builds call `__rcu_read_lock()`", "The checking build (`CHECKING=1`"),
    ],
    "expedited": [
        ("docs/rcu.md", "## `synchronize_rcu_expedited()`: every CPU at once",
         "## Asynchronous grace periods"),
    ],
}

PML = {
    "call_rcu": ["tools/model/async.pml"],
    "idle": ["tools/model/async.pml"],
}
