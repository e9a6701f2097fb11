// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark: opening a capture must cost its header, not its data.
//
// Generates a capture of 256 calls x (input_ids, attention_mask, 64 layers x key and
// value cache tensors) = 33,280 leaves, then, in a fresh child process, measures
// in one run:
//   - reading the file's bytes once (the baseline),
//   - CaptureReader::open (validate header + manifest, build every call's pytree),
//   - peak RSS growth during open, against the header's size.
// Issue 11's targets: open < 100 ms, peak memory growth <= 2x the header.
//
// Quick mode (default, the ctest entry): the same leaves with tiny tensors.
// Full mode (DIMSCOPE_BENCH_FULL=1): bfloat16 caches of 2x8xSEQx64, ~4.8 GB of data.
// The file goes to $TMPDIR (or /tmp) and is deleted afterwards.
// The generator is tests/common/benchcapture.cpp (also used by tests/ui/tst_largecapture).
// Exit code 1 when the capture cannot be opened or the memory target is missed
// (the time target depends on the machine; it is reported, not enforced). The
// first open in a process and the best later one are both reported: the first
// also pays a page fault for every page of new memory, which costs 10-15 us each
// on a virtual machine, where a later open reuses the memory the previous freed.
#include "benchcapture.h"

#include "capture/capturereader.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTextStream>

#include <cstdio>
#include <ctime>

#include <sys/resource.h>

using namespace dimscope;

namespace {

qint64 procStatusKb(const char *field)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray key = QByteArray(field) + ':';
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed().split(' ').first().toLongLong();
    }
    return -1;
}

// CPU time of this thread: on a loaded machine wall time also counts other jobs.
double threadCpuMs()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// Page faults of this thread so far: each page of new memory costs one, and a
// first open in a fresh process touches every page of its structures.
long minorFaults()
{
    rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_minflt;
}

bool resetPeakRss()
{
    QFile f(QStringLiteral("/proc/self/clear_refs"));
    return f.open(QIODevice::WriteOnly) && f.write("5") == 1;
}

int measure(const QString &path)
{
    QTextStream out(stdout);
    // Baseline: the file's bytes, read once.
    QElapsedTimer timer;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        out << "cannot read " << path << "\n";
        return 1;
    }
    timer.start();
    quint64 checksum = 0;
    {
        QByteArray buffer(8 << 20, Qt::Uninitialized);
        qint64 n;
        while ((n = f.read(buffer.data(), buffer.size())) > 0)
            checksum += quint64(uchar(buffer[0])) + quint64(n);
    }
    const double readMs = double(timer.nsecsElapsed()) / 1e6;
    f.close();

    const bool peakReset = resetPeakRss();
    const qint64 rssBefore = procStatusKb("VmRSS");
    timer.restart();
    const double cpu0 = threadCpuMs();
    const long faults0 = minorFaults();
    QString error;
    std::optional<Capture> capture = CaptureReader::open(path, &error);
    const double openMs = double(timer.nsecsElapsed()) / 1e6;
    const double openCpuMs = threadCpuMs() - cpu0;
    const long openFaults = minorFaults() - faults0;
    const qint64 peak = procStatusKb("VmHWM");
    const qint64 rssAfter = procStatusKb("VmRSS");
    if (!capture) {
        out << "open failed: " << error << "\n";
        return 1;
    }
    qint64 leaves = 0;
    for (const CapturedCall &c : capture->calls)
        leaves += c.inputs.leaves.size();

    // Warm repeats: the best of three further opens.
    double bestMs = openMs;
    double bestCpuMs = openCpuMs;
    long warmFaults = 0;
    for (int i = 0; i < 3; ++i) {
        timer.restart();
        const double c0 = threadCpuMs();
        const long f0 = minorFaults();
        std::optional<Capture> again = CaptureReader::open(path, &error);
        bestMs = std::min(bestMs, double(timer.nsecsElapsed()) / 1e6);
        bestCpuMs = std::min(bestCpuMs, threadCpuMs() - c0);
        warmFaults = minorFaults() - f0;
    }

    const double headerMb = double(capture->headerSize) / (1 << 20);
    const double peakGrowthMb = double(peak - rssBefore) / 1024;
    const double retainedMb = double(rssAfter - rssBefore) / 1024;
    const double memRatio = peakGrowthMb / headerMb;
    out << QStringLiteral("file:              %1 MB, header %2 MB, %3 calls, %4 leaves (checksum %5)\n")
               .arg(double(capture->fileSize) / (1 << 20), 0, 'f', 1).arg(headerMb, 0, 'f', 2)
               .arg(capture->calls.size()).arg(leaves).arg(checksum % 1000);
    out << QStringLiteral("read bytes once:   %1 ms (baseline)\n").arg(readMs, 0, 'f', 1);
    auto verdict = [](bool met) { return met ? QStringLiteral("met") : QStringLiteral("MISSED"); };
    out << QStringLiteral("open + pytree:     %1 ms first, %2 ms best of 4 (issue 11's target < 100 ms: first %3, later %4)\n")
               .arg(openMs, 0, 'f', 1).arg(bestMs, 0, 'f', 1).arg(verdict(openMs < 100), verdict(bestMs < 100));
    out << QStringLiteral("open CPU time:     %1 ms first, %2 ms best of 4 (wall time above includes other load)\n")
               .arg(openCpuMs, 0, 'f', 1).arg(bestCpuMs, 0, 'f', 1);
    out << QStringLiteral("page faults:       %1 first open, %2 a later open\n").arg(openFaults).arg(warmFaults);
    out << QStringLiteral("open / read:       %1\n").arg(openMs / readMs, 0, 'f', 4);
    out << QStringLiteral("peak RSS growth:   %1 MB = %2 x header (issue 11's target <= 2x: %3)%4\n")
               .arg(peakGrowthMb, 0, 'f', 2).arg(memRatio, 0, 'f', 2)
               .arg(verdict(memRatio <= 2))
               .arg(peakReset ? QString() : QStringLiteral(" [peak not resettable: includes earlier peaks]"));
    out << QStringLiteral("retained RSS:      %1 MB = %2 x header\n").arg(retainedMb, 0, 'f', 2).arg(retainedMb / headerMb, 0, 'f', 2);
    out.flush();
    return memRatio <= 2 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() == 3 && args.at(1) == QLatin1String("--measure"))
        return measure(args.at(2));

    const bool full = qEnvironmentVariableIntValue("DIMSCOPE_BENCH_FULL") == 1;
    const QString path = QDir::temp().filePath(QStringLiteral("dimscope-bench-%1.safetensors").arg(QCoreApplication::applicationPid()));
    QTextStream out(stdout);
    out << "bench_capture_open (" << (full ? "full" : "quick") << " mode; DIMSCOPE_BENCH_FULL=1 for several GB)\n";
    out.flush();
    QElapsedTimer timer;
    timer.start();
    const qint64 leaves = test::writeBenchCapture(path, full ? test::BenchCaptureShape::full() : test::BenchCaptureShape::quick());
    if (leaves < 0) {
        out << "cannot write " << path << "\n";
        QFile::remove(path);
        return 1;
    }
    out << "generated " << leaves << " tensor leaves in " << timer.elapsed() << " ms\n";
    out.flush();
    // Measured in a fresh process, so that the generator's heap does not hide or
    // inflate the reader's memory growth.
    QProcess child;
    child.setProcessChannelMode(QProcess::ForwardedChannels);
    child.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--measure"), path});
    const bool finished = child.waitForFinished(-1);
    QFile::remove(path);
    if (!finished || child.exitStatus() != QProcess::NormalExit)
        return 1;
    return child.exitCode();
}
