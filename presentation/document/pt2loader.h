// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2program.h"
#include "util/latestjob.h"

#include <QObject>
#include <QString>
#include <QVector>

namespace dimscope {

// Reads a .pt2's programs (every one of a multi-program archive) off the GUI thread:
// Pt2Reader::openAll inflates and parses the
// program record, tens of MB for a large model. A new open() supersedes the one in
// flight: its result is dropped (the reader cannot stop midway; it is bounded by
// Pt2ReadLimits). One of opened() or failed() follows each open() not superseded.
class Pt2Loader : public QObject
{
    Q_OBJECT
public:
    explicit Pt2Loader(QObject *parent = nullptr);
    ~Pt2Loader() override;

    void open(const QString &path);
    // Drops the result of the open in flight.
    void cancel();
    bool isRunning() const { return m_job.isRunning(); }

signals:
    void opened(const QString &path, const QVector<dimscope::Pt2Program> &programs);
    void failed(const QString &path, const QString &error);

private:
    LatestJob m_job;
};

} // namespace dimscope
