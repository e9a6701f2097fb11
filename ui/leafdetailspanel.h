// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "document/leafstatistics.h"
#include "models/loadedcapture.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace dimscope {

class ElidedLabel;
class ProjectDocument;

// The selected leaf in every call: dtype, shape, device and value statistics. The
// statistics are LeafStatistics' job (debounced, off the GUI thread, a new selection
// cancels the job in flight); the panel tells it the selection and shows what it holds.
class LeafDetailsPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { CallColumn, DTypeColumn, ShapeColumn, DeviceColumn, MinColumn, MaxColumn, MeanColumn, StdColumn,
                  NanColumn, InfColumn, ColumnCount };

    explicit LeafDetailsPanel(QWidget *parent = nullptr);
    ~LeafDetailsPanel() override;

    static constexpr int kDebounceMs = LeafStatistics::kDebounceMs;

    void setLoaded(const LoadedCapturePtr &loaded);
    // Shows the document's capture, now and whenever another one is opened.
    void setDocument(ProjectDocument *document);
    void showNode(int node); // -1 clears
    QTableWidget *table() const { return m_table; }
    LeafStatistics *statistics() const { return m_statistics; }

signals:
    // For tests and the status of the work: a job began for `node` (after the
    // debounce); a superseded job ended, its result dropped; the rows of the shown
    // leaf are complete.
    void statisticsStarted(int node);
    void statisticsCancelled(int node);
    void statisticsFinished();

private:
    void requestStatistics();
    void fitColumns();
    void showStatistics(const QVector<TensorStats> &stats);

    LoadedCapturePtr m_loaded;
    ElidedLabel *m_title;
    QTableWidget *m_table;
    int m_node = -1;
    bool m_waitingForPaint = false; // a new capture's tree is not painted yet
    LeafStatistics *m_statistics;
};

} // namespace dimscope
