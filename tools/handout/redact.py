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
                      line after it that starts with the second (PARAGRAPH:
                      to the paragraph's end, its first blank line).  A note
                      that starts with "#" replaces a heading that starts
                      the passage; any other note follows it.
    EVERY_HANDOUT     (first line, the line that follows, note): passages
                      of every lab's handout (docs/labs/NAME.md, each lab's
                      own and the others'), in every student repository
    OTHER_HANDOUT     the note under the title of the other labs' handouts
    REWORD            (file, text, its replacement): a phrase of a doc or of
                      the Makefile's comments that names an instructor's file
                      or tool; the text must occur exactly once
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

PARAGRAPH = ""   # a passage's end: the first blank line

INSTRUCTOR_ONLY = [
    "docs/labs/INSTRUCTOR.md",      # answers, mistakes, exam questions
    "docs/lecture",                 # the lecture's slides and their notes
    "tools/handout",                # this tool: it reads the reference
    "tools/slides.py",              # make slides: the lecture's renderer
    "tools/tests/test_handout.py",  # the tests of both
    "tools/labs/ci.sh",             # grades every lab's reference
    "tools/labs/wrong",             # wrong solutions, as patches of the reference
    "tools/labs/wrong.py",          # and the tool that grades them
    "tools/labs/unseen",            # the tests students never see (make grade UNSEEN=)
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
    ("docs/labs/README.md", "## From a fresh clone to a graded lab: two commands",
     "| lab | what you build | handout |",
     "## Your lab: one command\n\n"
     "This repository is lab `{lab}`'s, started already (`.lab`; `README.md`'s first "
     "lines say so):\n\n"
     "```sh\n"
     "make grade      # builds, boots the lab's tests, prints each part and Score: N/M\n"
     "```\n\n"
     "The first `make grade` builds newlib and then the kernel, and says so as "
     "it goes (how long that takes: README.md, \"The first build\"; the packages "
     "are installed by `make deps`).  A starter scores below full marks: its "
     "stubs panic with `lab stub: NAME` as soon as a test needs them (lab "
     "`server`'s bank says `lab stub` and ends at once).  Write "
     "the functions, then `make grade` again until it prints full marks (its "
     "exit status is 0 only then).  `make grade ARCH=aarch64` grades on the "
     "other architecture.\n\n"
     "The course's labs, in order; in this repository the functions of every "
     "lab but `{lab}` are written already, and each of the other labs comes in "
     "a student repository of its own:"),
    ("docs/labs/README.md", "(`tools/labs/wrong/call_rcu/snapshot_one_short.patch`",
     "```",
     "(one of the lab's classic wrong solutions, which your instructor has; graded "
     "in the course's repository, so no base commit is named):"),
    ("docs/labs/README.md", "## How it works", "## When you are done",
     "- `make grade` grades the lab named in `.lab`, `{lab}`; `make lab` "
     "starts no other lab here (each comes in a repository of its own).\n"
     "- The grader uses the tests and the lab definition as they are in "
     "this repository's first commit, and refuses to grade a tree that changed "
     "`tests/` or `tools/labs/` (it says which files, and how to restore them).  "
     "Change anything else you like."),
]

# In every handout, in each lab's handout (docs/labs/NAME.md).
WRONG_NOTE = ("The classic wrong solutions, each with what the grader says to it, "
              "are your instructor's: ask for them once your lab scores full marks.")
EVERY_HANDOUT = [
    ("Classic wrong solutions, each with what the grader says to it", PARAGRAPH, WRONG_NOTE),
]
OTHER_HANDOUT = ("*[This repository is lab `{lab}`'s: the functions this "
                 "handout asks for are written already (the reference), so `make lab` and "
                 "`make grade` do not apply to it here.  The lab comes in a "
                 "student repository of its own: ask your instructor.]*")

# Phrases that name what a student repository does not hold.
REWORD = [
    ("docs/labs/README.md", "grades one part, for\n  instance `make grade PART=wrap`.",
     "grades one part (the ids are\n  in `docs/labs/{lab}.md`'s table; `wrap` above is lab `call_rcu`'s)."),
    ("README.md", "the\nlabs (`tools/labs/ci.sh`: each reference",
     "the\nlabs (in the course's repository: each reference"),
    ("README.md", ", `make handout LAB=NAME` makes its student repository |",
     ", `make handout LAB=NAME` makes a student repository (in the course's "
     "repository; this is one) |"),
    ("README.md", "| `make handout`: where the student repository goes |",
     "| `make handout` (in the course's repository): where the student repository goes |"),
    ("Makefile", "#   make handout    LAB=NAME: the student repository of that lab, without its\n"
     "#                   solution, in build/handout/NAME (docs/labs/INSTRUCTOR.md)\n"
     "#   make slides     the RCU lecture (docs/lecture/) as HTML and PDF in build/slides\n",
     "#   make handout, make slides: the course's repository's (the student\n"
     "#                   repositories, the lecture); here they say so and stop\n"),
    ("Makefile", "# make handout LAB=NAME: the student repository of lab NAME (a git repository\n"
     "# of one commit, the lab's functions as starters, no trace of their\n"
     "# reference: tools/handout/handout.py checks) in HANDOUT_DIR.\n",
     "# make handout: student repositories are made in the course's repository;\n"
     "# this is one.\n"),
    ("Makefile", "# make slides: the RCU lecture (docs/lecture/slides.md) rendered by reveal.js\n"
     "# (npm) in headless Chromium into $(BUILD)/slides (index.html, lecture.pdf),\n"
     "# then checked page by page (tools/slides.py).\n",
     "# make slides: the RCU lecture is in the course's repository, not here.\n"),
]

PASSAGES = {
    "run_on": [
        ("docs/gdb.md", "## A session: `synchronize_rcu()` hops from CPU to CPU",
         "## The x86-64 boot"),
    ],
    "publish": [
        ("docs/rcu.md", "## Publish and subscribe", "## `synchronize_rcu()`: the article's two lines"),
        ("docs/walkthrough.md", "### `gp` and `struct foo`", "- `make run DEMO=publish`"),
        ("docs/walkthrough.md", "`lib/rculist.h` is Linux's API, written for this kernel and its programs.",
         "- `make run DEMO=list_publish`"),
        ("docs/walkthrough.md", "Note how `list_del_rcu()` leaves", "Quick Quizzes 2 and 3"),
    ],
    "call_rcu": [
        _MODEL_MD_MACHINERY,
        ("docs/gdb.md", "Other places worth a breakpoint:", "## The x86-64 boot"),
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
