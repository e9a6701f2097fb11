// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/loadedcapture.h"

#include <QTimer>
#include <QWidget>

#include <atomic>
#include <memory>

class QLabel;
class QTableWidget;

namespace dimscope {

class ProjectDocument;

struct TensorStats;

// The selected leaf in every call: dtype, shape, device and value statistics. The
// statistics read every byte of the leaf in every call (seconds for a large cache), so
// they run off the GUI thread, one job at a time: selections within kDebounceMs of
// each other start one job, for the last, and a new selection cancels the job in
// flight (it stops at its next chunk, TensorStatsOptions::cancel).
class LeafDetailsPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { CallColumn, DTypeColumn, ShapeColumn, DeviceColumn, MinColumn, MaxColumn, MeanColumn, StdColumn,
                  NanColumn, InfColumn, ColumnCount };

    explicit LeafDetailsPanel(QWidget *parent = nullptr);
    ~LeafDetailsPanel() override;

    static constexpr int kDebounceMs = 100;

    void setLoaded(const LoadedCapturePtr &loaded);
    // Shows the document's capture, now and whenever another one is opened.
    void setDocument(ProjectDocument *document);
    void showNode(int node); // -1 clears
    QTableWidget *table() const { return m_table; }

signals:
    // For tests and the status of the work: a job began for `node` (after the
    // debounce); a superseded job stopped before its end; the rows of the shown leaf
    // are complete.
    void statisticsStarted(int node);
    void statisticsCancelled(int node);
    void statisticsFinished();

private:
    void cancelStatistics();
    void startStatistics();
    void fitColumns();
    void showStatistics(const QVector<TensorStats> &stats);

    LoadedCapturePtr m_loaded;
    QLabel *m_title;
    QTableWidget *m_table;
    int m_node = -1;
    int m_generation = 0;
    QTimer m_debounce;
    bool m_waitingForPaint = false; // a new capture's tree is not painted yet
    std::shared_ptr<std::atomic_bool> m_cancel; // the job in flight's; set to supersede it
};

} // namespace dimscope
