// ns-3 peer of a satcp GEO scenario, for the behavioural cross-check
// (`make crosscheck`, python/satcp/crosscheck.py; see bench/ns3/README.md).
//
// Topology, as in satcp's crosscheck scenario:
//
//   server --access (both ways)-- gateway --satellite (down/up)-- client
//
// `flows` bulk transfers from server to client (BulkSendApplication ->
// PacketSink, one port each), flow i starting at i * startStep. The
// gateway's device toward the client has a drop-tail queue of `queue`
// packets and a per-packet error model (RateErrorModel, ERROR_UNIT_PACKET,
// rate `per`) on the client's receiving side: every packet crossing the
// downlink, SYN and FIN included, is lost with probability `per`, as
// satcp's `errors_ab = { per = p }`.
//
// Every TCP knob that satcp has is an argument (ns-3 CommandLine syntax,
// --name=value; --PrintHelp lists them). Their defaults are satcp's
// defaults, so an ns-3 run with no arguments is the satcp scenario written
// by crosscheck.py with its defaults. Output: one JSON object on stdout with
// per-flow completion time, goodput, retransmissions and the number of
// entries into ns-3's fast recovery (CA_RECOVERY) and loss (CA_LOSS, an RTO)
// states.
//
// Completion time = time the sink has received `size` bytes - flow start
// (the BulkSendApplication's start, which sends the SYN): satcp's
// `completion_s` with response_end = "last_byte". Goodput = size * 8 /
// completion time, as satcp's `goodput_bps`. With size = 0 (unlimited)
// flows run until `stop` and goodput = bytes received * 8 / (stop - start).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

// Counters of one flow, filled by trace sinks.
struct FlowStats
{
    double startS{0};
    uint64_t rxBytes{0};
    double doneAtS{-1};
    uint64_t retransmissions{0};
    uint64_t fastRecoveries{0};
    uint64_t lossStates{0};
};

std::vector<FlowStats> g_flows;
uint64_t g_size = 0;
uint32_t g_done = 0;
uint64_t g_queueDrops = 0; // gateway->client drop-tail drops
uint64_t g_errorDrops = 0; // gateway->client packets lost to the error model
std::FILE* g_cwndTrace = nullptr; // --cwndTrace: "time_s flow cwnd_bytes" lines

void
OnQueueDrop(Ptr<const Packet>)
{
    g_queueDrops++;
}

void
OnErrorDrop(Ptr<const Packet>)
{
    g_errorDrops++;
}

void
OnRx(uint32_t i, Ptr<const Packet> p, const Address&)
{
    FlowStats& f = g_flows[i];
    f.rxBytes += p->GetSize();
    if (g_size > 0 && f.doneAtS < 0 && f.rxBytes >= g_size)
    {
        f.doneAtS = Simulator::Now().GetSeconds();
        if (++g_done == g_flows.size())
        {
            Simulator::Stop();
        }
    }
}

void
OnRetransmission(uint32_t i,
                 Ptr<const Packet>,
                 const TcpHeader&,
                 const Address&,
                 const Address&,
                 Ptr<const TcpSocketBase>)
{
    g_flows[i].retransmissions++;
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        g_flows[i].fastRecoveries++;
    }
    else if (now == TcpSocketState::CA_LOSS)
    {
        g_flows[i].lossStates++;
    }
}

void
OnCwnd(uint32_t i, uint32_t, uint32_t now)
{
    std::fprintf(g_cwndTrace, "%.6f %u %u\n", Simulator::Now().GetSeconds(), i, now);
}

// The BulkSendApplication creates its socket in StartApplication; hook the
// traces right after.
void
HookSocket(uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    if (g_cwndTrace)
    {
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    }
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetransmission, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
}

void
SetSackDefault(bool on)
{
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(on));
}

void
Fail(const std::string& msg)
{
    std::fprintf(stderr, "tcp_peer: %s\n", msg.c_str());
    std::exit(2);
}

} // namespace

int
main(int argc, char** argv)
{
    // Variant and recovery.
    std::string variant = "NewReno";
    std::string sack = "1";
    std::string recovery = "classic";
    bool limitedTransmit = false;
    // Workload.
    uint32_t flows = 1;
    double startStep = 0.0;
    uint64_t size = 10000000;
    double stop = 3600.0;
    // Network.
    std::string accessRate = "100Mbps";
    double accessDelay = 0.005;
    std::string downRate = "10Mbps";
    std::string upRate = "2Mbps";
    double satDelay = 0.250;
    uint32_t queue = 250;
    double per = 0.0;
    // TCP (satcp defaults).
    uint32_t mss = 1460;
    uint32_t iw = 0; // 0 = RFC 3390 from the MSS
    uint32_t rwnd = 4 * 1024 * 1024;
    bool windowScaling = true;
    uint32_t delAckCount = 2;
    double delAckTimeout = 0.200;
    double minRto = 1.0;
    double initialRto = 1.0;
    double clockGranularity = 0.001;
    uint32_t dupThresh = 3;
    uint32_t seed = 1;
    // Variant parameters (satcp's documented defaults).
    uint32_t vegasAlpha = 1;
    uint32_t vegasBeta = 3;
    uint32_t vegasGamma = 1;
    double hyblaRtt0 = 0.025;
    bool cubicHyStart = true;
    bool cubicFastConvergence = true;
    std::string cwndTrace;

    CommandLine cmd(__FILE__);
    cmd.AddValue("variant", "NewReno, Vegas, WestwoodPlus, Hybla, Cubic or Bbr", variant);
    cmd.AddValue("sack", "SACK option: 1, 0, or alt (even flows 1, odd flows 0)", sack);
    cmd.AddValue("recovery", "classic (TcpClassicRecovery) or prr (TcpPrrRecovery)", recovery);
    cmd.AddValue("limitedTransmit", "RFC 3042 limited transmit", limitedTransmit);
    cmd.AddValue("flows", "number of flows", flows);
    cmd.AddValue("startStep", "flow i starts at i * startStep seconds", startStep);
    cmd.AddValue("size", "bytes per flow (0 = unlimited, until stop)", size);
    cmd.AddValue("stop", "simulated time limit, seconds", stop);
    cmd.AddValue("accessRate", "server-gateway rate, both ways", accessRate);
    cmd.AddValue("accessDelay", "server-gateway one-way delay, seconds", accessDelay);
    cmd.AddValue("downRate", "gateway->client rate", downRate);
    cmd.AddValue("upRate", "client->gateway rate", upRate);
    cmd.AddValue("satDelay", "gateway-client one-way delay, seconds", satDelay);
    cmd.AddValue("queue", "drop-tail limit of the gateway->client device, packets (0 = unlimited)",
                 queue);
    cmd.AddValue("per", "packet error rate on gateway->client", per);
    cmd.AddValue("mss", "segment size, bytes", mss);
    cmd.AddValue("iw", "initial window, segments (0 = RFC 3390)", iw);
    cmd.AddValue("rwnd", "receive buffer (= advertised window), bytes", rwnd);
    cmd.AddValue("windowScaling", "RFC 7323 window scaling", windowScaling);
    cmd.AddValue("delAckCount", "ACK every N segments (1 = no delayed ACK)", delAckCount);
    cmd.AddValue("delAckTimeout", "delayed-ACK timer, seconds", delAckTimeout);
    cmd.AddValue("minRto", "minimum RTO, seconds", minRto);
    cmd.AddValue("initialRto", "initial RTO (and SYN timeout), seconds", initialRto);
    cmd.AddValue("clockGranularity", "G in RTO = SRTT + max(G, 4 RTTVAR), seconds",
                 clockGranularity);
    cmd.AddValue("dupThresh", "duplicate ACKs for fast retransmit", dupThresh);
    cmd.AddValue("seed", "ns-3 run number (RngSeedManager::SetRun; seed is 1)", seed);
    cmd.AddValue("vegasAlpha", "TcpVegas Alpha, segments", vegasAlpha);
    cmd.AddValue("vegasBeta", "TcpVegas Beta, segments", vegasBeta);
    cmd.AddValue("vegasGamma", "TcpVegas Gamma, segments", vegasGamma);
    cmd.AddValue("hyblaRtt0", "TcpHybla RRTT, seconds", hyblaRtt0);
    cmd.AddValue("cubicHyStart", "TcpCubic HyStart", cubicHyStart);
    cmd.AddValue("cubicFastConvergence", "TcpCubic FastConvergence", cubicFastConvergence);
    cmd.AddValue("cwndTrace", "file for every cwnd change: time_s flow cwnd_bytes", cwndTrace);
    cmd.Parse(argc, argv);
    if (!cwndTrace.empty() && !(g_cwndTrace = std::fopen(cwndTrace.c_str(), "w")))
    {
        Fail("--cwndTrace=" + cwndTrace + ": cannot open");
    }

    TypeId cc;
    if (variant == "NewReno")
    {
        cc = TcpNewReno::GetTypeId();
    }
    else if (variant == "Vegas")
    {
        cc = TcpVegas::GetTypeId();
    }
    else if (variant == "WestwoodPlus")
    {
        cc = TcpWestwoodPlus::GetTypeId();
    }
    else if (variant == "Hybla")
    {
        cc = TcpHybla::GetTypeId();
    }
    else if (variant == "Cubic")
    {
        cc = TcpCubic::GetTypeId();
    }
    else if (variant == "Bbr")
    {
        cc = TcpBbr::GetTypeId();
    }
    else
    {
        Fail("--variant=" + variant + ": NewReno, Vegas, WestwoodPlus, Hybla, Cubic or Bbr");
    }
    if (sack != "0" && sack != "1" && sack != "alt")
    {
        Fail("--sack=" + sack + ": 1, 0 or alt");
    }
    if (recovery != "classic" && recovery != "prr")
    {
        Fail("--recovery=" + recovery + ": classic or prr");
    }
    if (flows == 0 || (size == 0 && stop <= 0))
    {
        Fail("need flows >= 1 and, for unlimited flows, a stop time");
    }
    if (iw == 0)
    {
        // RFC 3390: min(4 MSS, max(2 MSS, 4380 B)), in whole segments.
        iw = std::min(4 * mss, std::max(2 * mss, 4380u)) / mss;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(cc));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(Seconds(delAckTimeout)));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rwnd));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(std::max(rwnd, 1u << 20) * 2));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(initialRto)));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(windowScaling));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(Seconds(clockGranularity)));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(dupThresh));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(initialRto)));
    Config::SetDefault("ns3::TcpVegas::Alpha", UintegerValue(vegasAlpha));
    Config::SetDefault("ns3::TcpVegas::Beta", UintegerValue(vegasBeta));
    Config::SetDefault("ns3::TcpVegas::Gamma", UintegerValue(vegasGamma));
    Config::SetDefault("ns3::TcpHybla::RRTT", TimeValue(Seconds(hyblaRtt0)));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(cubicHyStart));
    Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(cubicFastConvergence));
    SetSackDefault(sack != "0");

    Ptr<Node> server = CreateObject<Node>();
    Ptr<Node> gateway = CreateObject<Node>();
    Ptr<Node> client = CreateObject<Node>();

    // Device queues: "unlimited" is far above anything a 4 MiB window of
    // every flow can queue.
    const uint32_t unlimited = 10000000;
    PointToPointHelper p2p;
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, unlimited)));
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(accessRate)));
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(accessDelay)));
    NetDeviceContainer dAccess = p2p.Install(server, gateway);
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(satDelay)));
    NetDeviceContainer dSat = p2p.Install(gateway, client);
    auto gwDev = DynamicCast<PointToPointNetDevice>(dSat.Get(0));
    auto clDev = DynamicCast<PointToPointNetDevice>(dSat.Get(1));
    gwDev->SetDataRate(DataRate(downRate));
    clDev->SetDataRate(DataRate(upRate));
    if (queue > 0)
    {
        gwDev->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, queue));
    }
    clDev->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OnErrorDrop));
    if (per > 0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(per);
        clDev->SetReceiveErrorModel(em);
    }

    InternetStackHelper stack;
    stack.Install(NodeContainer(server, gateway, client));
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.1.0", "255.255.255.0");
    addr.Assign(dAccess);
    addr.SetBase("10.0.2.0", "255.255.255.0");
    Ipv4InterfaceContainer iSat = addr.Assign(dSat);
    // Only the devices' drop-tail queues, as in satcp: remove the pfifo_fast
    // root queue discs that Assign installs (see bench/ns3/README.md).
    TrafficControlHelper tch;
    tch.Uninstall(dAccess);
    tch.Uninstall(dSat);
    // Without a queue disc, a packet that finds the device queue full is
    // dropped by the traffic-control layer (TcDrop), not by the queue. The
    // gateway's only busy direction is toward the client.
    gateway->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop",
        MakeCallback(&OnQueueDrop));
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    Ipv4Address clientAddr = iSat.GetAddress(1);

    g_size = size;
    g_flows.resize(flows);
    for (uint32_t i = 0; i < flows; ++i)
    {
        double start = i * startStep;
        g_flows[i].startS = start;
        uint16_t port = 5000 + i;
        PacketSinkHelper sinkH("ns3::TcpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(client);
        sa.Start(Seconds(0));
        sa.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, i));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(clientAddr, port));
        src.SetAttribute("MaxBytes", UintegerValue(size));
        src.SetAttribute("SendSize", UintegerValue(mss));
        ApplicationContainer ca = src.Install(server);
        ca.Start(Seconds(start));
        if (sack == "alt")
        {
            // The socket is created at the application's start from the
            // defaults of that moment; this event is scheduled before the
            // start event, so at equal times it runs first (geo_bench.cc).
            Simulator::Schedule(Seconds(start), &SetSackDefault, i % 2 == 0);
        }
        Simulator::Schedule(Seconds(start) + NanoSeconds(1),
                            &HookSocket,
                            i,
                            DynamicCast<BulkSendApplication>(ca.Get(0)));
    }

    Simulator::Stop(Seconds(stop));
    Simulator::Run();
    double end = Simulator::Now().GetSeconds();
    Simulator::Destroy();
    if (g_cwndTrace)
    {
        std::fclose(g_cwndTrace);
    }

    std::printf("{\"simulator\":\"ns-3.44\",\"variant\":\"%s\",\"sack\":\"%s\","
                "\"recovery\":\"%s\",\"seed\":%u,\"sim_time_s\":%.9g,\"downlink_queue_drops\":%llu,"
                "\"downlink_error_drops\":%llu,\"flows\":[",
                variant.c_str(),
                sack.c_str(),
                recovery.c_str(),
                seed,
                end,
                static_cast<unsigned long long>(g_queueDrops),
                static_cast<unsigned long long>(g_errorDrops));
    for (uint32_t i = 0; i < flows; ++i)
    {
        const FlowStats& f = g_flows[i];
        bool done = f.doneAtS >= 0;
        double active = (done ? f.doneAtS : end) - f.startS;
        double goodput = active > 0 ? std::min<uint64_t>(f.rxBytes, size ? size : f.rxBytes) *
                                          8.0 / active
                                    : 0.0;
        std::printf("%s{\"name\":\"f%u\",\"start_s\":%.9g,\"completed\":%s,\"completion_s\":",
                    i ? "," : "",
                    i,
                    f.startS,
                    done ? "true" : "false");
        if (done)
        {
            std::printf("%.9g", f.doneAtS - f.startS);
        }
        else
        {
            std::printf("null");
        }
        std::printf(",\"bytes_delivered\":%llu,\"goodput_bps\":%.9g,\"retransmissions\":%llu,"
                    "\"fast_recoveries\":%llu,\"loss_states\":%llu}",
                    static_cast<unsigned long long>(f.rxBytes),
                    goodput,
                    static_cast<unsigned long long>(f.retransmissions),
                    static_cast<unsigned long long>(f.fastRecoveries),
                    static_cast<unsigned long long>(f.lossStates));
    }
    std::printf("]}\n");
    return 0;
}
