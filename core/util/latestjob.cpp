// SPDX-License-Identifier: GPL-3.0-or-later
#include "latestjob.h"

#include <QMutex>
#include <QMutexLocker>
#include <QPointer>
#include <QThreadPool>

namespace dimscope {

// The pool threads' way home. The owner detaches it in its destructor, under the mutex
// that every post holds: a post either reaches the owner's event queue before the owner
// is destroyed (and ~QObject removes it from there unread) or finds no owner. A QPointer
// alone would not do: reading it on a pool thread races with the owner's destruction.
struct LatestJob::Control::Relay {
    explicit Relay(LatestJob *owner) : owner(owner) {}

    // Queues `call(owner)` on the owner's thread; does nothing once the owner is gone.
    void post(std::function<void(LatestJob *)> call)
    {
        QMutexLocker lock(&mutex);
        if (!owner)
            return;
        LatestJob *target = owner;
        QMetaObject::invokeMethod(
            target, [target, call = std::move(call)] { call(target); }, Qt::QueuedConnection);
    }

    void detach()
    {
        QMutexLocker lock(&mutex);
        owner = nullptr;
    }

    QMutex mutex;
    LatestJob *owner;
};

LatestJob::Control::Control(std::shared_ptr<Relay> relay, JobId job, std::shared_ptr<std::atomic_bool> cancel)
    : m_relay(std::move(relay)), m_job(job), m_cancel(std::move(cancel))
{
}

void LatestJob::Control::post(std::function<void()> update) const
{
    m_relay->post([job = m_job, update = std::move(update)](LatestJob *owner) {
        if (owner->m_current == job)
            update();
    });
}

LatestJob::LatestJob(QObject *parent) : QObject(parent), m_relay(std::make_shared<Control::Relay>(this)) {}

LatestJob::~LatestJob()
{
    m_relay->detach();
    if (m_cancel)
        m_cancel->store(true);
}

void LatestJob::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel.reset();
    m_current = 0;
}

LatestJob::JobId LatestJob::launch(Task task)
{
    cancel();
    const JobId job = ++m_lastJob;
    m_current = job;
    m_cancel = std::make_shared<std::atomic_bool>(false);
    const Control control(m_relay, job, m_cancel);
    QThreadPool::globalInstance()->start([control, task = std::move(task)] {
        std::function<void()> deliver = task(control);
        control.m_relay->post([job = control.m_job, deliver = std::move(deliver)](LatestJob *owner) {
            owner->jobEnded(job, deliver);
        });
    });
    return job;
}

void LatestJob::jobEnded(JobId job, const std::function<void()> &deliver)
{
    if (job != m_current) {
        emit dropped(job);
        return;
    }
    m_current = 0;
    m_cancel.reset();
    // deliver() may start the next job, or destroy this object's owner (and this).
    QPointer<LatestJob> self(this);
    deliver();
    if (self)
        emit finished(job);
}

} // namespace dimscope
