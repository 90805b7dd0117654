// ns-3 peer of satcp-bench: builds the same network and workload as one of
// satcp-bench's scenarios (crates/satcp-core/src/bin/satcp-bench.rs) and
// prints one JSON line with the wall time, event count and goodput.
//
//   geo_bench SCENARIO [--stop SECONDS]
//   geo_bench dumbbell KEY VALUE...
//
// SCENARIO is geo-10-flows or geo-50-flows-100mbps. --stop overrides the
// scenario's stop time (run.stop). `dumbbell` builds the reference network
// of bench/suite.py from its keys (server -access- gateway -satellite-
// client, N flows server -> client): --flows N, --access-rate R,
// --access-delay S, --sat-rate R, --sat-rate-up R, --sat-delay S, --qlim N
// (0: unlimited), --per P (packet error rate toward the client), --sack
// 0|1|alt (alt: even flows SACK), --rwnd BYTES, --bytes B (per flow, 0:
// unlimited), --stagger S (flow i starts at i*S), --mss N, --stop S, --run N
// (ns-3's RNG run number: the error model's draws; default 1). See
// bench/ns3/README.md for how every satcp setting maps onto ns-3 and where
// the two setups differ.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct LinkSpec
{
    std::string rateAb;  // rate of the a -> b direction (device on a)
    std::string rateBa;  // rate of the b -> a direction (device on b)
    double delayS;       // one-way propagation delay, both directions
    uint32_t queueAbPkts; // drop-tail limit of a's device (0 = unlimited)
    double berAb;        // bit error rate of a -> b (0 = none)
    double perAb = 0.0;  // packet error rate of a -> b (0 = none)
};

struct FlowSpec
{
    bool sack;
    uint32_t rwndBytes;
    double startS;
    uint64_t maxBytes = 0; // 0: unlimited
};

struct ScenarioSpec
{
    double stopS;
    LinkSpec access; // server(s) -> gateway
    LinkSpec sat;    // gateway -> client(s)
    std::vector<FlowSpec> flows;
    uint32_t mss = 1460;
    uint64_t run = 1; // ns-3's RNG run number (satcp: run.seed)
};

// "Unlimited" queues: far more packets than any window in these scenarios
// can put in flight (4 MiB rwnd x 50 flows / 1460 B ~ 144k segments).
const uint32_t kUnlimitedPkts = 1000000;

bool
MakeScenario(const std::string& name, ScenarioSpec& s)
{
    const uint32_t MiB = 1024 * 1024;
    if (name == "geo-10-flows")
    {
        s.stopS = 1000.0;
        s.access = {"100Mbps", "100Mbps", 0.005, 0, 0.0};
        s.sat = {"10Mbps", "2Mbps", 0.250, 100, 1e-8};
        for (int i = 0; i < 10; ++i)
        {
            s.flows.push_back({true, 1 * MiB, i * 0.100});
        }
        return true;
    }
    if (name == "geo-50-flows-100mbps")
    {
        s.stopS = 300.0;
        s.access = {"1Gbps", "1Gbps", 0.002, 0, 0.0};
        s.sat = {"100Mbps", "100Mbps", 0.250, 1000, 0.0};
        for (int i = 0; i < 50; ++i)
        {
            s.flows.push_back({i % 2 == 0, 4 * MiB, i * 0.020});
        }
        return true;
    }
    return false;
}

// Connects a and b with a point-to-point link as LinkSpec says. Returns the
// devices (0 on a, 1 on b).
NetDeviceContainer
Connect(Ptr<Node> a, Ptr<Node> b, const LinkSpec& l)
{
    PointToPointHelper p2p;
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(l.delayS)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, kUnlimitedPkts)));
    NetDeviceContainer d = p2p.Install(a, b);
    auto da = DynamicCast<PointToPointNetDevice>(d.Get(0));
    auto db = DynamicCast<PointToPointNetDevice>(d.Get(1));
    // Asymmetric rates: one DataRate per transmitting device.
    da->SetDataRate(DataRate(l.rateAb));
    db->SetDataRate(DataRate(l.rateBa));
    if (l.queueAbPkts > 0)
    {
        da->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, l.queueAbPkts));
    }
    if (l.berAb > 0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_BIT);
        em->SetRate(l.berAb);
        db->SetReceiveErrorModel(em);
    }
    else if (l.perAb > 0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(l.perAb);
        db->SetReceiveErrorModel(em);
    }
    return d;
}

void
SetSackDefault(bool on)
{
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(on));
}

// The `dumbbell` keys (see the top of this file). Returns false on a bad
// argument, after printing what is wrong.
bool
ParseDumbbell(int argc, char** argv, ScenarioSpec& s)
{
    int flows = 1;
    std::string sackMode = "1";
    uint32_t rwnd = 1 << 20;
    uint64_t bytes = 0;
    double stagger = 0.0;
    s.stopS = 100.0;
    s.access = {"100Mbps", "100Mbps", 0.005, 0, 0.0};
    s.sat = {"10Mbps", "10Mbps", 0.250, 100, 0.0};
    for (int i = 2; i < argc; i += 2)
    {
        std::string k = argv[i];
        if (i + 1 >= argc)
        {
            std::fprintf(stderr, "geo_bench dumbbell: %s needs a value\n", k.c_str());
            return false;
        }
        std::string v = argv[i + 1];
        if (k == "--flows")
            flows = std::atoi(v.c_str());
        else if (k == "--access-rate")
            s.access.rateAb = s.access.rateBa = v;
        else if (k == "--access-delay")
            s.access.delayS = std::atof(v.c_str());
        else if (k == "--sat-rate")
            s.sat.rateAb = v;
        else if (k == "--sat-rate-up")
            s.sat.rateBa = v;
        else if (k == "--sat-delay")
            s.sat.delayS = std::atof(v.c_str());
        else if (k == "--qlim")
            s.sat.queueAbPkts = std::atoi(v.c_str());
        else if (k == "--per")
            s.sat.perAb = std::atof(v.c_str());
        else if (k == "--sack")
            sackMode = v;
        else if (k == "--rwnd")
            rwnd = std::atoi(v.c_str());
        else if (k == "--bytes")
            bytes = std::strtoull(v.c_str(), nullptr, 10);
        else if (k == "--stagger")
            stagger = std::atof(v.c_str());
        else if (k == "--mss")
            s.mss = std::atoi(v.c_str());
        else if (k == "--stop")
            s.stopS = std::atof(v.c_str());
        else if (k == "--run")
            s.run = std::strtoull(v.c_str(), nullptr, 10);
        else
        {
            std::fprintf(stderr, "geo_bench dumbbell: unknown key %s\n", k.c_str());
            return false;
        }
    }
    if (flows < 1 || (sackMode != "0" && sackMode != "1" && sackMode != "alt"))
    {
        std::fprintf(stderr, "geo_bench dumbbell: --flows must be >= 1 and --sack 0, 1 or alt\n");
        return false;
    }
    for (int i = 0; i < flows; ++i)
    {
        bool sack = sackMode == "1" || (sackMode == "alt" && i % 2 == 0);
        s.flows.push_back({sack, rwnd, i * stagger, bytes});
    }
    return true;
}

// Per flow: payload bytes the sink has received, and when it had them all.
struct FlowRx
{
    uint64_t want = 0;
    uint64_t got = 0;
    double doneAt = -1.0;
};

void
OnSinkRx(FlowRx* f, Ptr<const Packet> p, const Address&)
{
    f->got += p->GetSize();
    if (f->want > 0 && f->doneAt < 0 && f->got >= f->want)
    {
        f->doneAt = Simulator::Now().GetSeconds();
    }
}

} // namespace

int
main(int argc, char** argv)
{
    if (argc < 2)
    {
        std::fprintf(stderr, "usage: geo_bench SCENARIO [--stop SECONDS]\n");
        return 2;
    }
    std::string name = argv[1];
    ScenarioSpec s;
    if (name == "dumbbell")
    {
        if (!ParseDumbbell(argc, argv, s))
        {
            return 2;
        }
        argc = 2; // the keys are read
    }
    else if (!MakeScenario(name, s))
    {
        std::fprintf(stderr,
                     "geo_bench: unknown scenario %s (geo-10-flows, geo-50-flows-100mbps)\n",
                     name.c_str());
        return 2;
    }
    for (int i = 2; i < argc; ++i)
    {
        std::string a = argv[i];
        if (a == "--stop" && i + 1 < argc)
        {
            s.stopS = std::atof(argv[++i]);
        }
        else
        {
            std::fprintf(stderr, "usage: geo_bench SCENARIO [--stop SECONDS]\n");
            return 2;
        }
    }

    auto t0 = std::chrono::steady_clock::now();

    // satcp: [run] seed = N. ns-3: seed 1, run N (independent streams per
    // run; the dumbbell's --run, 1 otherwise).
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(s.run);

    // TCP settings (satcp defaults for these flows; see README).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(s.mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(3));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    // A bulk sender fills its send buffer at once: 8 MiB a socket, unless
    // the dumbbell's windows are small (10,000 flows x 8 MiB held 16 GB
    // before the run had gone far); twice the receive window keeps every
    // window full.
    uint32_t sndBuf = 8 * 1024 * 1024;
    if (name == "dumbbell")
    {
        sndBuf = std::max<uint32_t>(2 * s.flows[0].rwndBytes, 128 * 1024);
    }
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(sndBuf));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1))); // initial RTO
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold", UintegerValue(3));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(Seconds(1)));
    SetSackDefault(true);
    // All flows of a scenario share one receive buffer size.
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(s.flows[0].rwndBytes));

    Ptr<Node> server = CreateObject<Node>();
    Ptr<Node> gateway = CreateObject<Node>();
    Ptr<Node> client = CreateObject<Node>();
    NodeContainer all(server, gateway, client);

    NetDeviceContainer dAccess = Connect(server, gateway, s.access);
    NetDeviceContainer dSat = Connect(gateway, client, s.sat);

    InternetStackHelper stack;
    stack.Install(all);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.1.0", "255.255.255.0");
    addr.Assign(dAccess);
    addr.SetBase("10.0.2.0", "255.255.255.0");
    Ipv4InterfaceContainer iSat = addr.Assign(dSat);
    // No queue disc: the only queues are the devices' drop-tail queues, as in
    // satcp. Ipv4AddressHelper::Assign installs a default root queue disc
    // (pfifo_fast, 1000 packets) on each device; remove it afterwards.
    TrafficControlHelper tch;
    tch.Uninstall(dAccess);
    tch.Uninstall(dSat);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    Ipv4Address clientAddr = iSat.GetAddress(1);

    std::vector<Ptr<PacketSink>> sinks;
    std::vector<FlowRx> rxs(s.flows.size());
    for (size_t i = 0; i < s.flows.size(); ++i)
    {
        const FlowSpec& f = s.flows[i];
        uint16_t port = 5000 + i;
        PacketSinkHelper sinkH("ns3::TcpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(client);
        sa.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));
        rxs[i].want = f.maxBytes;
        sinks.back()->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, &rxs[i]));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(clientAddr, port));
        src.SetAttribute("MaxBytes", UintegerValue(f.maxBytes));
        src.SetAttribute("SendSize", UintegerValue(s.mss));
        ApplicationContainer ca = src.Install(server);
        ca.Start(Seconds(f.startS));
        // BulkSendApplication creates its socket when it starts, from the
        // attribute defaults of that moment. Per-flow SACK: set the default
        // just before. This event is scheduled now, before the application's
        // start event (scheduled during node initialization at t=0), so at
        // equal times it runs first.
        Simulator::Schedule(Seconds(f.startS), &SetSackDefault, f.sack);
    }

    Simulator::Stop(Seconds(s.stopS));
    Simulator::Run();

    auto t1 = std::chrono::steady_clock::now();
    double wall = std::chrono::duration<double>(t1 - t0).count();
    uint64_t events = Simulator::GetEventCount();
    double simS = Simulator::Now().GetSeconds();
    uint64_t rx = 0;
    for (auto& k : sinks)
    {
        rx += k->GetTotalRx();
    }
    // the finite flows' completion: when the last one had every byte, from
    // its start (-1: some flow did not complete)
    double lastDone = 0.0;
    for (size_t i = 0; i < rxs.size(); ++i)
    {
        if (rxs[i].want == 0)
        {
            continue;
        }
        lastDone = rxs[i].doneAt < 0 || lastDone < 0 ? -1.0 : std::max(lastDone, rxs[i].doneAt - s.flows[i].startS);
    }
    Simulator::Destroy();

    std::printf("{\"scenario\":\"%s\",\"sim_s\":%.9g,\"events\":%llu,\"wall_s\":%.6f,"
                "\"events_per_s\":%.6g,\"rx_bytes\":%llu,\"goodput_mbps\":%.6f,\"completion_s\":%.9g}\n",
                name.c_str(),
                simS,
                static_cast<unsigned long long>(events),
                wall,
                events / wall,
                static_cast<unsigned long long>(rx),
                rx * 8.0 / s.stopS / 1e6,
                lastDone);
    return 0;
}
