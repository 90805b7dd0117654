# ns-2 2.35 peer for the XFWA study (`satcp.reproduce.xfwa`): plain TCP
# NewReno on drop-tail over Taleb et al.'s Topology(3, 1, MAX, 0, 0):
#   src_i --up-- b1 ==isl1== b2 ==isl2== b3 --down-- dst_i
# every link 20 ms, the ISLs at the bottleneck rate with a drop-tail buffer
# of `qlim` packets, the up- and downlinks at 10 Mb/s (buffers that never
# fill). N greedy FTP flows start uniformly in [0, 5 ms] (scenario A) and
# run `stop` seconds. Arguments are name=value (defaults below). At the end
# the script prints
#   bottleneck departures <packets> drops <packets> arrivals <packets> qavg <packets> util <fraction>
#   flow <i> bytes <n>
# where qavg is the bottleneck queue's time average (the queue monitor's
# integral over the run) and util the bottleneck's busy fraction
# (bytes departed x 8 / (rate x stop)).
array set P {
    flows 8 rate 1.5Mb qlim 29 stop 20 seed 1 packetSize 1000 window 4000
    delay 20ms access_rate 10Mb access_qlim 1000 jitter 0.005
}
foreach a $argv {
    set kv [split $a =]
    set P([lindex $kv 0]) [lindex $kv 1]
}
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $P(seed)

set b1 [$ns node]
set b2 [$ns node]
set b3 [$ns node]
foreach {x y} [list $b1 $b2 $b2 $b3] {
    $ns duplex-link $x $y $P(rate) $P(delay) DropTail
    $ns queue-limit $x $y $P(qlim)
    $ns queue-limit $y $x $P(qlim)
}
set qm [$ns monitor-queue $b1 $b2 [open /dev/null w] 0.1]

Agent/TCP set packetSize_ $P(packetSize)
Agent/TCP set window_ $P(window)
set start_rng [new RNG]
$start_rng seed [expr {$P(seed) + 1}]
set starts [new RandomVariable/Uniform]
$starts set min_ 0
$starts set max_ $P(jitter)
$starts use-rng $start_rng

for {set i 0} {$i < $P(flows)} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $b1 $P(access_rate) $P(delay) DropTail
    $ns duplex-link $b3 $d($i) $P(access_rate) $P(delay) DropTail
    $ns queue-limit $s($i) $b1 $P(access_qlim)
    $ns queue-limit $b3 $d($i) $P(access_qlim)
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [$starts value] "$ftp($i) start"
}

proc finish {} {
    global ns qm P tcp sink
    set rate [bw_parse $P(rate)]
    set dep [$qm set pdepartures_]
    set bdep [$qm set bdepartures_]
    set drops [$qm set pdrops_]
    set arr [$qm set parrivals_]
    set integ [[$qm get-pkts-integrator] set sum_]
    puts [format "bottleneck departures %d drops %d arrivals %d qavg %.6f util %.6f" \
        $dep $drops $arr [expr {$integ / $P(stop)}] [expr {$bdep * 8.0 / ($rate * $P(stop))}]]
    for {set i 0} {$i < $P(flows)} {incr i} {
        puts [format "flow %d bytes %d" $i [expr {[$tcp($i) set ack_] * $P(packetSize)}]]
    }
    exit 0
}
$ns at $P(stop) "finish"
$ns run
