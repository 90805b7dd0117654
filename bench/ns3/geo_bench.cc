// ns-3 peer of satcp-bench: builds the same network and workload as one of
// satcp-bench's scenarios (crates/satcp-core/src/bin/satcp-bench.rs) and
// prints one JSON line with the wall time, event count and goodput.
//
//   geo_bench SCENARIO [--stop SECONDS]
//
// SCENARIO is geo-10-flows or geo-50-flows-100mbps. --stop overrides the
// scenario's stop time (run.stop). See bench/ns3/README.md for how every
// satcp setting maps onto ns-3 and where the two setups differ.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

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
};

struct FlowSpec
{
    bool sack;
    uint32_t rwndBytes;
    double startS;
};

struct ScenarioSpec
{
    double stopS;
    LinkSpec access; // server(s) -> gateway
    LinkSpec sat;    // gateway -> client(s)
    std::vector<FlowSpec> flows;
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
    return d;
}

void
SetSackDefault(bool on)
{
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(on));
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
    if (!MakeScenario(name, s))
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

    // satcp: [run] seed = 1. ns-3's default is seed 1, run 1; set explicitly.
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);

    // TCP settings (satcp defaults for these flows; see README).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(3));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(8 * 1024 * 1024));
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
    for (size_t i = 0; i < s.flows.size(); ++i)
    {
        const FlowSpec& f = s.flows[i];
        uint16_t port = 5000 + i;
        PacketSinkHelper sinkH("ns3::TcpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(client);
        sa.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(clientAddr, port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(1460));
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
    Simulator::Destroy();

    std::printf("{\"scenario\":\"%s\",\"sim_s\":%.9g,\"events\":%llu,\"wall_s\":%.6f,"
                "\"events_per_s\":%.6g,\"rx_bytes\":%llu,\"goodput_mbps\":%.6f}\n",
                name.c_str(),
                simS,
                static_cast<unsigned long long>(events),
                wall,
                events / wall,
                static_cast<unsigned long long>(rx),
                rx * 8.0 / s.stopS / 1e6);
    return 0;
}
