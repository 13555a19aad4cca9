"""A verify --matrix (jobs 1, in process) in a child forked from a parent holding many objects,
as a Sphinx reader computes a page's matrix; the child's CPU and page faults."""
import gc, os, resource, sys, time
n_objs = int(sys.argv[1]); freeze = sys.argv[2] == "freeze"; spec = sys.argv[3]; games = sys.argv[4]
jobs = sys.argv[5] if len(sys.argv) > 5 else "1"
junk = [{"k": [i, str(i)], "v": (i, i + 1)} for i in range(n_objs)]   # a big env
from atoll.cli import main
pid = os.fork()
if pid == 0:
    if freeze:
        gc.freeze()
    sys.stdout = open(os.devnull, "w")
    main(["verify", spec, "--matrix", "--json", "--games", games, "--jobs", jobs])
    os._exit(0)
os.waitpid(pid, 0)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"objs={n_objs} freeze={freeze} jobs={jobs}: user {ru.ru_utime:.2f} sys {ru.ru_stime:.2f} minflt {ru.ru_minflt} majflt {ru.ru_majflt}")
