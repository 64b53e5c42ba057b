package pgtest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of CPU times in /proc/PID/stat: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// CPU is the CPU time the cluster's processes have used, user plus
// system: the postmaster with its finished children, and the live ones
// (the backends serving open connections). Benchmarks report it beside
// their own process's, so a store whose work happens in another process
// is not measured as free. 0 where /proc is not readable.
func (c *Cluster) CPU() time.Duration {
	b, err := os.ReadFile(filepath.Join(c.dir, "data", "postmaster.pid"))
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0
	}
	ticks := int64(0)
	if f, ok := procStat(pm); ok {
		ticks += f.utime + f.stime + f.cutime + f.cstime
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == pm {
			continue
		}
		if f, ok := procStat(pid); ok && f.ppid == int64(pm) {
			ticks += f.utime + f.stime
		}
	}
	return time.Duration(ticks) * time.Second / clockTicks
}

type statFields struct{ ppid, utime, stime, cutime, cstime int64 }

// procStat reads /proc/PID/stat; the command name, in parentheses, may
// hold spaces, so fields are counted after its closing parenthesis.
func procStat(pid int) (statFields, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return statFields{}, false
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return statFields{}, false
	}
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return statFields{}, false
	}
	// After ")": state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
	fs := strings.Fields(line[i+1:])
	if len(fs) < 15 {
		return statFields{}, false
	}
	n := func(k int) int64 { v, _ := strconv.ParseInt(fs[k-3], 10, 64); return v }
	return statFields{ppid: n(4), utime: n(14), stime: n(15), cutime: n(16), cstime: n(17)}, true
}
