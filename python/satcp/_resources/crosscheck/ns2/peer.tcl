# ns-2 2.35 peer for `satcp.crosscheck_ns2`: N one-way TCP flows through a
# chain  src_i --access-- n1 ==satellite== n2 --access-- dst_i.
# Every parameter is a name=value argument (defaults below); the script
# prints one line per flow at the end:
#   flow <i> last <s> done <s> acked <packets> rexmitpack <n> rexmit <n> bytes <n>
# With vartrace=FILE, flow 0's variable changes (cwnd_, ssthresh_, t_seqno_,
# ack_, dupacks_, rtt_, srtt_, rttvar_, backoff_, maxseq_) go to FILE; with
# qtrace=FILE, the satellite queue's events (ns-2's trace format: + enqueue,
# - dequeue, d drop, r receive) go to FILE.
# With sample=S, every S seconds a line per flow (see `sample` below);
# access_qlim sets the access links' queue limits (default: unlimited).
# With shared=1 every flow's agent sits on one source node (one access
# link to n1) and every sink on n2 itself: server -access- n1 =satellite=
# n2, the three-node network of the speed benchmark (bench/suite.py), which
# also keeps ns-2's all-pairs routing table small at 10,000 flows.
# `last` is when the sink had received every byte in order (polled every
# millisecond), `done` when the sender saw its last packet acknowledged
# (Agent/TCP's `done` callback), both from the flow's start; `bytes` what
# the sink delivered.
array set P {
    agent Newreno sink TCPSink flows 1 packets 1000 stop 600 seed 1
    access_rate 100Mb access_delay 5ms sat_rate 10Mb sat_rate_up 10Mb sat_delay 250ms
    qlim 250 per 0 packetSize 1000 window 20 windowInit 2 maxburst 0
    delack_interval 0.1 start_spacing 0 hdr 40 vartrace {} qtrace {}
    syn 1 delay_growth 1 syn_immediate_ack 1 newreno_changes1 1 partial_window_deflation 1 minrto 0.2 rtxcur_init 3.0 tcpTick 0.01
    precision_reduce 1
    cbr_rate 0 cbr_size 1000 singledup 1 bursts {} burst_delay 0
    access_qlim 100000 sample 0 shared 0 check_every 0.001
}
foreach a $argv {
    set kv [split $a =]
    set P([lindex $kv 0]) [lindex $kv 1]
}
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $P(seed)

set n1 [$ns node]
set n2 [$ns node]
$ns simplex-link $n1 $n2 $P(sat_rate) $P(sat_delay) DropTail
$ns simplex-link $n2 $n1 $P(sat_rate_up) $P(sat_delay) DropTail
$ns queue-limit $n1 $n2 $P(qlim)
if {$P(qtrace) ne {}} {
    set qt [open $P(qtrace) w]
    $ns trace-queue $n1 $n2 $qt
}
if {$P(per) > 0 || $P(bursts) ne {}} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $P(per)
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $n1 $n2
}
# bursts=FILE: error intervals "start,end,per" (s; '#' lines and a header
# skipped), replayed on the satellite link's data direction: the error
# model's rate is per in an interval, 0 outside, and with burst_delay > 0
# the link's delay is raised by it during the interval (TRANSAT's S-LACP
# approximation as ns-2 does it: packets sent in a burst arrive that much
# later and later packets may overtake them)
if {$P(bursts) ne {}} {
    set dl [[$ns link $n1 $n2] link]
    set base_delay [$dl set delay_]
    set bf [open $P(bursts) r]
    foreach line [split [read $bf] "\n"] {
        set line [string trim $line]
        if {$line eq {} || [string index $line 0] eq "#" || [string match "start*" $line]} { continue }
        lassign [split $line ,] b0 b1 bp
        if {$bp eq {}} { set bp 1.0 }
        $ns at $b0 "$em set rate_ $bp; $dl set delay_ [expr {$base_delay + $P(burst_delay)}]"
        $ns at $b1 "$em set rate_ 0; $dl set delay_ $base_delay"
    }
    close $bf
}

# the agents' defaults that changed since the ns-2 of 2003 (the TRANSAT and
# Peach papers): syn_ and delay_growth_ (2.35: true; without a SYN,
# delay_growth_ still holds cwnd at the first ACK), the DelAck sinks'
# SYN_immediate_ack_ (packet 0 ACKed at once, a SYN or not),
# newreno_changes1_ (1 since 2.27), partial_window_deflation_, minrto_,
# rtxcur_init_, tcpTick_, precisionReduce_ (true since 2006: a loss halves
# cwnd_ exactly, not to whole packets)
Agent/TCP set syn_ $P(syn)
Agent/TCP set delay_growth_ $P(delay_growth)
Agent/TCPSink/DelAck set SYN_immediate_ack_ $P(syn_immediate_ack)
Agent/TCPSink/Sack1/DelAck set SYN_immediate_ack_ $P(syn_immediate_ack)
Agent/TCP/Newreno set newreno_changes1_ $P(newreno_changes1)
Agent/TCP/Newreno set partial_window_deflation_ $P(partial_window_deflation)
Agent/TCP set minrto_ $P(minrto)
# Limited Transmit (on by default since 2001)
Agent/TCP set singledup_ $P(singledup)
Agent/TCP set rtxcur_init_ $P(rtxcur_init)
Agent/TCP set tcpTick_ $P(tcpTick)
Agent/TCP set precisionReduce_ $P(precision_reduce)
Agent/TCPSink/DelAck set interval_ $P(delack_interval)
Agent/TCPSink/Sack1/DelAck set interval_ $P(delack_interval)

proc agent_class {name} {
    if {$name eq "Tahoe"} { return Agent/TCP }
    return Agent/TCP/$name
}

set done_at {}
for {set i 0} {$i < $P(flows)} {incr i} {
    if {$P(shared) && $i > 0} {
        set s($i) $s(0)
        set d($i) $n2
    } elseif {$P(shared)} {
        set s(0) [$ns node]
        set d(0) $n2
        $ns duplex-link $s(0) $n1 $P(access_rate) $P(access_delay) DropTail
        $ns queue-limit $s(0) $n1 $P(access_qlim)
        $ns queue-limit $n1 $s(0) $P(access_qlim)
    } else {
        set s($i) [$ns node]
        set d($i) [$ns node]
        $ns duplex-link $s($i) $n1 $P(access_rate) $P(access_delay) DropTail
        $ns duplex-link $n2 $d($i) $P(access_rate) $P(access_delay) DropTail
        $ns queue-limit $s($i) $n1 $P(access_qlim)
        $ns queue-limit $n1 $s($i) $P(access_qlim)
        $ns queue-limit $n2 $d($i) $P(access_qlim)
        $ns queue-limit $d($i) $n2 $P(access_qlim)
    }
    set tcp($i) [new [agent_class $P(agent)]]
    $tcp($i) set packetSize_ $P(packetSize)
    $tcp($i) set window_ $P(window)
    $tcp($i) set windowInit_ $P(windowInit)
    $tcp($i) set maxburst_ $P(maxburst)
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/$P(sink)]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    if {$i == 0 && $P(vartrace) ne {}} {
        # every change of flow 0's window, sequence and timer variables
        set vt [open $P(vartrace) w]
        $tcp(0) attach $vt
        foreach v {cwnd_ ssthresh_ t_seqno_ ack_ dupacks_ rtt_ srtt_ rttvar_ backoff_ maxseq_} {
            $tcp(0) tracevar $v
        }
    }
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    set start($i) [expr {$i * $P(start_spacing)}]
    set finish($i) -1
    set last($i) -1
    $tcp($i) proc done {} "global finish start ns; set finish($i) \[expr {\[\$ns now\] - \$start($i)}\]"
    if {$P(packets) > 0} {
        $ns at $start($i) "$ftp($i) produce $P(packets)"
    } else {
        $ns at $start($i) "$ftp($i) start"
    }
}
proc report {} {
    global P tcp finish last sink ns
    for {set i 0} {$i < $P(flows)} {incr i} {
        puts [format "flow %d last %s done %s acked %d rexmitpack %d rexmit %d bytes %d" $i $last($i) $finish($i) \
            [expr {[$tcp($i) set ack_] + 1}] [$tcp($i) set nrexmitpack_] [$tcp($i) set nrexmit_] [$sink($i) set bytes_]]
    }
    global vt qt
    if {[info exists vt]} { close $vt }
    if {[info exists qt]} { close $qt }
    exit 0
}
# every millisecond (check_every): note when each sink has every byte (its application's
# last byte; the sink counts wire bytes, packetSize_ + hdr, hdr 40 but 0 for
# Vegas, whose output() adds no header), and stop once every finite flow is
# done, or at `stop`
proc check {} {
    global P finish last sink start ns
    set all 1
    for {set i 0} {$i < $P(flows)} {incr i} {
        # (without a SYN the sink counts the first packet's header short)
        set want [expr {$P(packets) * ($P(packetSize) + $P(hdr)) - ($P(syn) ? 0 : $P(hdr))}]
        if {$last($i) < 0 && [$sink($i) set bytes_] >= $want} {
            set last($i) [expr {[$ns now] - $start($i)}]
        }
        if {$finish($i) < 0 || $last($i) < 0} { set all 0 }
    }
    if {$all} { report }
    $ns at [expr {[$ns now] + $P(check_every)}] "check"
}
# cbr_rate > 0: a UDP CBR flow of cbr_size-byte packets from flow 0's
# source to its sink's node, from t = 0 (TRANSAT's cross traffic: it shares
# the satellite queue with the TCP data)
if {$P(cbr_rate) ne "0"} {
    set udp [new Agent/UDP]
    $udp set packetSize_ $P(cbr_size)
    $ns attach-agent $s(0) $udp
    set null [new Agent/Null]
    $ns attach-agent $d(0) $null
    $ns connect $udp $null
    set cbr [new Application/Traffic/CBR]
    $cbr set packetSize_ $P(cbr_size)
    $cbr set rate_ $P(cbr_rate)
    $cbr attach-agent $udp
    $ns at 0.0 "$cbr start"
}
if {$P(packets) > 0} { $ns at 0.01 "check" }
# sample=S > 0: every S seconds from S on, one line per flow with the
# highest cumulative ACK the sender has seen, in packets:
#   sample <t> <i> <ack_ + 1>
proc sample {} {
    global P tcp ns
    set now [$ns now]
    for {set i 0} {$i < $P(flows)} {incr i} {
        puts [format "sample %.6f %d %d" $now $i [expr {[$tcp($i) set ack_] + 1}]]
    }
    $ns at [expr {$now + $P(sample)}] "sample"
}
if {$P(sample) > 0} { $ns at $P(sample) "sample" }
$ns at $P(stop) "report"
$ns run
