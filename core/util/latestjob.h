// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

#include <atomic>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace dimscope {

// The one way dimscope runs work off its owner's thread when only the newest request
// counts (a capture, a project or a .pt2 being read, the statistics of the selected
// leaf, an export's read-back): start() runs a job on the global thread pool, and a
// newer start() (or cancel()) supersedes the job in flight: its cancel flag is set, so
// work that polls it stops early, and its result is dropped, whenever it ends. Only the
// current job's result reaches its owner, on the owner's thread, through the deliver
// function given to start(); finished() follows it.
//
// Why one helper: the generation counter, the shared cancel flag and the hop back to the
// owner's thread were copied into five classes, each with its own way to get the race
// between a result and its supersession wrong.
//
// The owner may be destroyed while a job runs: the job's cancel flag is set, and nothing
// it returns or posts reaches the owner after that (the job itself runs to its end on the
// pool: the work must not touch the owner; the closures it posts, and deliver, may).
class LatestJob : public QObject
{
    Q_OBJECT
public:
    using JobId = quint64; // 0: no job

    // What a job's work sees on its pool thread.
    class Control
    {
    public:
        // True once the job is superseded, cancelled or its owner gone: the work should
        // stop at its next convenient point (its result is dropped anyway).
        bool isCancelled() const { return m_cancel->load(); }
        // The same flag, for readers that poll an atomic_bool themselves
        // (TensorStatsOptions::cancel). Valid while the work runs.
        const std::atomic_bool *cancelFlag() const { return m_cancel.get(); }
        // Runs `update` on the owner's thread, if the job is still current when it gets
        // there (progress of the job: nothing of a superseded job reaches the owner).
        void post(std::function<void()> update) const;
        JobId job() const { return m_job; }

    private:
        friend class LatestJob;
        struct Relay;
        Control(std::shared_ptr<Relay> relay, JobId job, std::shared_ptr<std::atomic_bool> cancel);
        std::shared_ptr<Relay> m_relay;
        JobId m_job;
        std::shared_ptr<std::atomic_bool> m_cancel;
    };

    explicit LatestJob(QObject *parent = nullptr);
    ~LatestJob() override; // sets the cancel flag of the job in flight

    // Supersedes the job in flight and runs `work(const Control &)` on the global thread
    // pool. When it returns and the job is still the current one, `deliver(result)` runs
    // on this object's thread, then finished(job) is emitted; otherwise dropped(job) is.
    // `work` must not throw (catch in it and return the error); `work` and `deliver` are
    // copied.
    template <typename Work, typename Deliver>
    JobId start(Work work, Deliver deliver)
    {
        using Result = std::decay_t<std::invoke_result_t<Work &, const Control &>>;
        return launch([work = std::move(work), deliver = std::move(deliver)](const Control &control) mutable {
            auto result = std::make_shared<Result>(work(control));
            return std::function<void()>([deliver, result] { deliver(std::move(*result)); });
        });
    }

    // The job in flight is superseded by none: its cancel flag is set, its result dropped.
    void cancel();
    // A job was started and neither delivered nor superseded nor cancelled yet.
    bool isRunning() const { return m_current != 0; }
    JobId currentJob() const { return m_current; }

signals:
    // The current job's result was delivered (after its deliver function returned).
    void finished(dimscope::LatestJob::JobId job);
    // A superseded or cancelled job ended; its result was dropped.
    void dropped(dimscope::LatestJob::JobId job);

private:
    // Runs on the pool; returns what delivers its result on the owner's thread.
    using Task = std::function<std::function<void()>(const Control &)>;
    JobId launch(Task task);
    void jobEnded(JobId job, const std::function<void()> &deliver);

    std::shared_ptr<Control::Relay> m_relay;
    JobId m_lastJob = 0;
    JobId m_current = 0;
    std::shared_ptr<std::atomic_bool> m_cancel; // the current job's
};

} // namespace dimscope
