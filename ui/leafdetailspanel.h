#pragma once

#include "models/loadedcapture.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace dimscope {

class ProjectDocument;

struct TensorStats;

// The selected leaf in every call: dtype, shape, device and value statistics. The
// statistics are computed off the GUI thread.
class LeafDetailsPanel : public QWidget
{
    Q_OBJECT
public:
    enum Column { CallColumn, DTypeColumn, ShapeColumn, DeviceColumn, MinColumn, MaxColumn, MeanColumn, StdColumn,
                  NanColumn, InfColumn, ColumnCount };

    explicit LeafDetailsPanel(QWidget *parent = nullptr);
    ~LeafDetailsPanel() override;

    void setLoaded(const LoadedCapturePtr &loaded);
    // Shows the document's capture, now and whenever another one is opened.
    void setDocument(ProjectDocument *document);
    void showNode(int node); // -1 clears
    QTableWidget *table() const { return m_table; }

signals:
    void statisticsFinished(); // for tests: the rows of the shown leaf are complete

private:
    void startStatistics();
    void fitColumns();
    void showStatistics(const QVector<TensorStats> &stats);

    LoadedCapturePtr m_loaded;
    QLabel *m_title;
    QTableWidget *m_table;
    int m_node = -1;
    int m_generation = 0;
};

} // namespace dimscope
