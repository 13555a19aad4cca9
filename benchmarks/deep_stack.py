"""verify run at a given Python call depth (as a Sphinx reader calls it), optionally in a fresh thread."""
import sys, os, threading
depth = int(sys.argv[1]); thread = sys.argv[2] == "thread"
from atoll.cli import main
args = ["verify", "spec/la_isla.atoll", "--players", "3", "--property", "assignment_stays_secret", "--json"]
def go():
    sys.stdout = open(os.devnull, "w")
    if thread:
        t = threading.Thread(target=main, args=(args,)); t.start(); t.join()
    else:
        main(args)
def down(n, a=0, b=0, c=0, d=0, e=0, f=0, g=0, h=0):
    if n == 0:
        return go()
    return down(n - 1, a, b, c, d, e, f, g, h)
down(depth)
