// SPDX-License-Identifier: GPL-3.0-or-later
// qcustomplot.h uses foreach in its templates: this source and plotexporter.cpp, the two
// that include it, compile with foreach; every other has QT_NO_FOREACH (dimscope_strict_qt).
#undef QT_NO_FOREACH
#include "plotpanel.h"

#include "plotexporter.h"
#include "plot/plotrange.h"
#include "plot/plottext.h"
#include "document/projectdocument.h"
#include "settings/settingskeys.h"

#include <qcustomplot.h>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QSettings>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

namespace dimscope {

namespace {
// Half the largest marker (the violating calls' 11 px cross plus its pen): the view
// keeps this much room at its edges, and a hover this close picks the point.
constexpr double kMarkerRadius = 7.0;
constexpr double kHoverDistance = 12.0;

bool isDark(const QPalette &palette) { return palette.color(QPalette::Base).lightnessF() < 0.5; }

QColor violationColour(const QPalette &palette)
{
    return isDark(palette) ? QColor(0xff, 0x6e, 0x6e) : QColor(0xd3, 0x2f, 0x2f);
}

QCPItemText *edgeMarker(QCustomPlot *plot, double yRatio, Qt::Alignment vertical)
{
    auto *marker = new QCPItemText(plot);
    marker->position->setType(QCPItemPosition::ptAxisRectRatio);
    marker->position->setCoords(0.99, yRatio);
    marker->setPositionAlignment(Qt::AlignRight | vertical);
    marker->setClipToAxisRect(false);
    marker->setSelectable(false);
    marker->setPadding(QMargins(3, 1, 3, 1));
    marker->setVisible(false);
    return marker;
}
} // namespace

PlotPanel::PlotPanel(QWidget *parent)
    : QWidget(parent), m_dimBox(new QComboBox(this)), m_plot(new QCustomPlot(this)),
      m_dimLabel(new QLabel(tr("Dimension:"), this)), m_title(new QLabel(this)), m_saveStatus(new QLabel(this)), m_saveStatusTimer(new QTimer(this)), m_saveAction(new QAction(tr("Save…"), this))
{
    setObjectName(QStringLiteral("plotPanel"));
    m_dimBox->setObjectName(QStringLiteral("plotDimension"));
    m_dimBox->setToolTip(tr("Dimension of the selected leaf to plot"));
    connect(m_dimBox, qOverload<int>(&QComboBox::activated), this, &PlotPanel::showDimension);
    m_saveAction->setObjectName(QStringLiteral("actionSavePlot"));
    m_saveAction->setToolTip(tr("Save the plot as PNG or PDF, with its title"));
    connect(m_saveAction, &QAction::triggered, this, &PlotPanel::saveInteractively);
    auto *save = new QToolButton(this);
    save->setObjectName(QStringLiteral("plotSave"));
    save->setDefaultAction(m_saveAction);
    auto *reset = new QToolButton(this);
    reset->setObjectName(QStringLiteral("plotResetView"));
    reset->setText(tr("Reset view"));
    reset->setToolTip(tr("Fit the view to the values again after zooming or panning"));
    connect(reset, &QToolButton::clicked, this, &PlotPanel::resetView);

    setUpPlot();

    m_title->setObjectName(QStringLiteral("plotTitle"));
    m_title->setTextFormat(Qt::RichText);
    // A long key path must not widen the dock: the label gives way, the tooltip keeps it.
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_saveStatus->setObjectName(QStringLiteral("plotSaveStatus"));
    m_saveStatus->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_saveStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_saveStatus->hide();
    m_saveStatusTimer->setSingleShot(true);
    m_saveStatusTimer->setInterval(15000);
    connect(m_saveStatusTimer, &QTimer::timeout, m_saveStatus, &QWidget::hide);
    applyPalette();

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_dimLabel);
    bar->addWidget(m_dimBox, 1);
    bar->addStretch();
    bar->addWidget(reset);
    bar->addWidget(save);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(m_title);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_saveStatus);
}

PlotPanel::~PlotPanel() = default;

void PlotPanel::setUpPlot()
{
    m_plot->setObjectName(QStringLiteral("plot"));
    m_plot->setInteractions(QCP::iRangeZoom | QCP::iRangeDrag | QCP::iSelectPlottables);
    // Low enough that the window with every dock fits a 1366x768 laptop at 125 %
    // (1093x614 logical pixels; issue 28, problem 1); the dock is made taller by hand.
    m_plot->setMinimumHeight(50);
    m_plot->setMouseTracking(true);
    m_plot->xAxis->setLabel(tr("call"));
    m_plot->yAxis->setLabel(tr("size"));
    // Calls and sizes are whole numbers: ticks at integers only, 1 apart or a round
    // multiple of 1 (the size axis read 0.2, 0.4, ... and 1.5; issue 28 problem 10).
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
    m_plot->yAxis->setTicker(ticker);
    QCPGraph *graph = m_plot->addGraph();
    graph->setLineStyle(QCPGraph::lsLine);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
    // Violating calls: crosses over the line (coloured in applyPalette).
    QCPGraph *bad = m_plot->addGraph();
    bad->setLineStyle(QCPGraph::lsNone);
    bad->setName(tr("violating calls"));
    // The Dim's [min, max]: a translucent band behind the values.
    m_bandRect = new QCPItemRect(m_plot);
    m_bandRect->setLayer(QStringLiteral("background"));
    m_bandRect->setClipToAxisRect(true);
    m_bandRect->setSelectable(false);
    m_bandRect->setVisible(false);
    // The Dim's bounds that the view leaves out, so that they do not flatten the values.
    m_topMarker = edgeMarker(m_plot, 0.02, Qt::AlignTop);
    m_topMarker->setObjectName(QStringLiteral("plotTopMarker"));
    m_bottomMarker = edgeMarker(m_plot, 0.98, Qt::AlignBottom);
    m_bottomMarker->setObjectName(QStringLiteral("plotBottomMarker"));
    m_hoverTracer = new QCPItemTracer(m_plot);
    m_hoverTracer->setStyle(QCPItemTracer::tsCircle);
    m_hoverTracer->setSize(14);
    m_hoverTracer->setSelectable(false);
    m_hoverTracer->setVisible(false);
    connect(m_plot, &QCustomPlot::mouseMove, this, &PlotPanel::hoverAt);
    m_plot->installEventFilter(this); // Leave: the hover ring goes with the mouse
}

void PlotPanel::setLoaded(const LoadedCapturePtr &loaded)
{
    m_loaded = loaded;
    showNode(-1);
}

void PlotPanel::showNode(int node)
{
    m_node = node;
    m_dimBox->clear();
    const bool valid = m_loaded && node > 0 && node < m_loaded->tree.nodes().size()
                       && m_loaded->tree.node(node).kind == NodeKind::Tensor;
    int first = -1;
    if (valid) {
        const ShapeSummary &shape = m_loaded->shapes.at(node);
        for (int d = 0; d < shape.rank(); ++d) {
            m_dimBox->addItem(tr("dim %1: %2").arg(d).arg(shape.parts.at(d)));
            if (first < 0 && shape.dynamic.at(d))
                first = d;
        }
        if (first < 0 && shape.rank() > 0)
            first = 0;
    }
    m_dimBox->setEnabled(m_dimBox->count() > 0);
    showDimension(first);
}

void PlotPanel::setDocument(ProjectDocument *document)
{
    m_document = document;
    connect(document, &ProjectDocument::captureChanged, this, [this] { setLoaded(m_document->loaded()); });
    connect(document, &ProjectDocument::validationChanged, this, &PlotPanel::redraw);
}

void PlotPanel::redraw()
{
    if (!m_dimName.isEmpty() && m_document && m_document->constraints().dim(m_dimName))
        showDim(m_dimName);
    else
        showDimension(m_dim);
}

void PlotPanel::showDimension(int dim)
{
    m_dim = dim;
    m_dimName.clear();
    m_points.clear();
    QString path, assigned;
    QSet<int> violating;
    if (m_loaded && m_node > 0 && dim >= 0) {
        m_dimBox->setCurrentIndex(dim);
        const AlignedNode &n = m_loaded->tree.node(m_node);
        for (int c = 0; c < m_loaded->tree.callCount(); ++c) {
            const Leaf *leaf = AlignedTree::leafIn(m_loaded->capture, n, c);
            if (leaf && leaf->isTensor() && dim < leaf->shape.size())
                m_points.append(QPointF(c, double(leaf->shape.at(dim))));
        }
        path = n.path;
        if (m_document) {
            const DimAssignment a = m_document->constraints().assignment(n.path, dim);
            if (a.isNamed())
                assigned = a.dim;
            for (const ConstraintViolation &v : m_document->validation().violations)
                if (v.path == n.path && v.dim == dim && v.call >= 0)
                    violating.insert(v.call);
        }
    }
    draw(path, dim, assigned, violating);
}

void PlotPanel::showDim(const QString &name)
{
    if (name.isEmpty() || !m_document || !m_document->constraints().dim(name)) {
        showDimension(m_dim);
        return;
    }
    m_dimName = name;
    m_points.clear();
    const ShapeTable &table = m_document->table();
    QString path;
    int dim = -1;
    for (const LeafConstraint &leaf : m_document->constraints().leaves()) {
        const int li = table.indexOf(leaf.path);
        for (int d = 0; li >= 0 && dim < 0 && d < leaf.dims.size() && d < table.leaf(li).rank; ++d) {
            if (!leaf.dims[d].isNamed() || leaf.dims[d].dim != name)
                continue;
            path = leaf.path;
            dim = d;
            const qint64 *row = table.row(table.leaf(li).firstDim + d);
            for (int c = 0; c < table.callCount(); ++c)
                if (row[c] >= 0)
                    m_points.append(QPointF(c, double(row[c])));
        }
        if (dim >= 0)
            break;
    }
    QSet<int> violating;
    for (const ConstraintViolation &v : m_document->validation().violations)
        if (v.dimName == name && v.call >= 0)
            violating.insert(v.call);
    draw(path, dim, name, violating);
}

void PlotPanel::draw(const QString &leafPath, int leafDim, const QString &assignedDim, const QSet<int> &violating)
{
    m_violating.clear();
    m_assignedDim = assignedDim;
    QVector<double> x, y, bx, by;
    for (const QPointF &p : std::as_const(m_points)) {
        // A call without the leaf is a gap in the line, not a line drawn across it
        // (QCustomPlot breaks a line at a NaN value; issue 28 problem 10).
        if (!x.isEmpty() && p.x() > x.last() + 1) {
            x.append(x.last() + 1);
            y.append(qQNaN());
        }
        x.append(p.x());
        y.append(p.y());
        if (violating.contains(int(p.x()))) {
            bx.append(p.x());
            by.append(p.y());
            m_violating.append(int(p.x()));
        }
    }
    m_plot->graph(0)->setData(x, y, true);
    m_plot->graph(1)->setData(bx, by, true);
    updateBand(assignedDim);
    updateTitle(leafPath, leafDim, assignedDim);
    m_plot->graph(0)->setName(m_titleText);
    m_dimBox->setVisible(m_dimName.isEmpty());
    m_dimLabel->setVisible(m_dimName.isEmpty());
    m_hoverTracer->setVisible(false);
    m_hoverText.clear();
    resetView();
}

// The effective range of the assigned Dim (a derived Dim's follows its root's).
void PlotPanel::updateBand(const QString &assignedDim)
{
    m_band.reset();
    const DimDecl *d = m_document && !assignedDim.isEmpty() ? m_document->constraints().dim(assignedDim) : nullptr;
    const DimDecl *root = d && d->isDerived() ? m_document->constraints().dim(d->root) : d;
    if (root) {
        const qint64 a = d->isDerived() ? d->a : 1, b = d->isDerived() ? d->b : 0;
        // In doubles: a set may bound a Dim by 2^63-1, and a * max would overflow 64 bits.
        const double lo = root->min ? double(a) * double(*root->min) + double(b) : 0.0;
        const double hi = root->max ? double(a) * double(*root->max) + double(b) : qInf();
        m_band = qMakePair(lo, hi);
    }
    m_bandRect->setVisible(bool(m_band));
    if (m_band) {
        m_bandRect->topLeft->setCoords(-1e9, std::isinf(m_band->second) ? 1e15 : m_band->second);
        m_bandRect->bottomRight->setCoords(1e9, m_band->first);
    }
}

void PlotPanel::updateTitle(const QString &leafPath, int leafDim, const QString &assignedDim)
{
    const QString range = m_band ? PlotText::rangeText(m_band->first, m_band->second) : QString();
    m_titleText = leafPath.isEmpty() ? QString() : PlotText::title(leafPath, leafDim, assignedDim, range);
    refreshTitleLabel();
}

void PlotPanel::refreshTitleLabel()
{
    QString html = m_titleText.toHtmlEscaped();
    if (!m_violating.isEmpty())
        html += tr(" · <span style='color:%1'>%n violating call(s)</span>", nullptr, m_violating.size())
                    .arg(violationColour(palette()).name());
    m_title->setText(html);
    m_title->setToolTip(m_titleText);
}

void PlotPanel::resetView()
{
    const QRect area = m_plot->axisRect()->rect();
    // Before the first layout the axis rect has no size: the defaults stand in.
    const PlotRange range = area.width() > 4 * kMarkerRadius && area.height() > 4 * kMarkerRadius
                                ? PlotRange::fit(m_points, m_band, kMarkerRadius / area.width(), kMarkerRadius / area.height())
                                : PlotRange::fit(m_points, m_band);
    m_plot->xAxis->setRange(range.xLower(), range.xUpper());
    m_plot->yAxis->setRange(range.yLower(), range.yUpper());
    QStringList top, bottom;
    for (const PlotRange::OffscreenBound &bound : range.offscreenBounds())
        (bound.above ? top : bottom).append(PlotText::offscreenBoundText(bound));
    m_topMarker->setText(top.join(QStringLiteral("  ")));
    m_topMarker->setVisible(!top.isEmpty());
    m_bottomMarker->setText(bottom.join(QStringLiteral("  ")));
    m_bottomMarker->setVisible(!bottom.isEmpty());
    replot();
}

QStringList PlotPanel::edgeMarkers() const
{
    QStringList texts;
    for (const QCPItemText *marker : {m_topMarker, m_bottomMarker})
        if (marker->visible())
            texts.append(marker->text());
    return texts;
}

void PlotPanel::hoverAt(QMouseEvent *event)
{
    const QPointF mouse = event->position();
    int nearest = -1;
    double best = kHoverDistance;
    for (int i = 0; i < m_points.size(); ++i) {
        const QPointF p(m_plot->xAxis->coordToPixel(m_points[i].x()), m_plot->yAxis->coordToPixel(m_points[i].y()));
        const double distance = QLineF(p, mouse).length();
        if (distance <= best) {
            best = distance;
            nearest = i;
        }
    }
    const bool had = !m_hoverText.isEmpty();
    if (nearest < 0) {
        clearHover();
    } else {
        const QPointF p = m_points[nearest];
        m_hoverText = PlotText::pointText(int(p.x()), p.y(), m_assignedDim, m_violating.contains(int(p.x())));
        m_hoverTracer->position->setCoords(p);
        m_hoverTracer->setVisible(true);
        QToolTip::showText(m_plot->mapToGlobal(mouse.toPoint()), m_hoverText, m_plot);
    }
    if (had || nearest >= 0)
        replot();
}

void PlotPanel::clearHover()
{
    m_hoverText.clear();
    m_hoverTracer->setVisible(false);
    QToolTip::hideText();
}

bool PlotPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_plot && event->type() == QEvent::Leave && !m_hoverText.isEmpty()) {
        clearHover();
        replot();
    }
    return QWidget::eventFilter(watched, event);
}

bool PlotPanel::saveTo(const QString &path, QString *error)
{
    const QString problem = PlotExporter::write(m_plot, path, m_titleText.isEmpty() ? tr("dimscope plot") : m_titleText);
    showSaveResult(path, problem);
    if (error)
        *error = problem;
    return problem.isEmpty();
}

void PlotPanel::showSaveResult(const QString &path, const QString &problem)
{
    const QString shown = QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath());
    m_saveStatus->setProperty("failed", !problem.isEmpty());
    m_saveStatus->setText(problem.isEmpty() ? tr("Saved %1").arg(shown) : problem);
    m_saveStatus->setToolTip(m_saveStatus->text());
    applyPalette();
    m_saveStatus->show();
    m_saveStatusTimer->start();
}

void PlotPanel::saveInteractively()
{
    QSettings settings;
    const QString folder = settings.value(settings::LastPlotFolder).toString();
    // A name to start from: what is plotted ("seq_len.png", "input_ids-dim1.png").
    const QString suggested = QDir(folder.isEmpty() ? QDir::homePath() : folder).filePath(suggestedFileName());
    QString path = QFileDialog::getSaveFileName(this, tr("Save plot"), suggested, tr("PNG image (*.png);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    if (!PlotExporter::isSupported(path))
        path += QStringLiteral(".png");
    settings.setValue(settings::LastPlotFolder, QFileInfo(path).absolutePath());
    saveTo(path);
}

QString PlotPanel::suggestedFileName() const
{
    const bool leaf = m_dimName.isEmpty() && m_loaded && m_node > 0 && m_dim >= 0;
    QString name = !m_dimName.isEmpty() ? m_dimName : leaf ? m_loaded->tree.node(m_node).path : QStringLiteral("plot");
    // A key path ("past_key_values.key_cache[0]", "inputs['a b']") as one file name.
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_.-]+"));
    name.replace(unsafe, QStringLiteral("_"));
    while (name.endsWith(QLatin1Char('_')))
        name.chop(1);
    name = name.left(120);
    if (leaf)
        name += QStringLiteral("-dim%1").arg(m_dim);
    return name + QStringLiteral(".png");
}

void PlotPanel::replot() { m_plot->replot(QCustomPlot::rpQueuedReplot); }

void PlotPanel::applyPalette()
{
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor grid = pal.color(QPalette::Mid);
    m_plot->setBackground(pal.color(QPalette::Base));
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 0, Qt::DotLine));
        // Call 0 and size 0 are ordinary values: no brighter line for them.
        axis->grid()->setZeroLinePen(QPen(grid, 0, Qt::DotLine));
    }
    const QColor highlight = pal.color(QPalette::Highlight);
    m_plot->graph(0)->setPen(QPen(highlight, 2));
    m_plot->graph(1)->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(violationColour(pal), 2), Qt::NoBrush, 11));
    QColor band = highlight;
    band.setAlpha(isDark(pal) ? 60 : 40);
    m_bandRect->setBrush(band);
    band.setAlpha(isDark(pal) ? 150 : 110);
    m_bandRect->setPen(QPen(band, 1, Qt::DashLine));
    for (QCPItemText *marker : {m_topMarker, m_bottomMarker}) {
        marker->setColor(text);
        marker->setBrush(pal.color(QPalette::Base));
        marker->setPen(QPen(band, 1, Qt::DashLine));
    }
    m_hoverTracer->setPen(QPen(text, 1.5));
    refreshTitleLabel();
    m_hoverTracer->setBrush(Qt::NoBrush);
    QPalette status = m_saveStatus->palette();
    status.setColor(QPalette::WindowText, m_saveStatus->property("failed").toBool() ? violationColour(pal)
                                                                                    : pal.color(QPalette::WindowText));
    m_saveStatus->setPalette(status);
    replot();
}

void PlotPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
        applyPalette();
}

} // namespace dimscope
