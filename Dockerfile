# One image for every process: web (the default command), worker and beat
# (docker-compose.yml sets their commands).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VAR_DIR=/var/lib/paymentsvc PORT=8000
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# Static files are collected into the image (whitenoise serves them); settings need
# some SECRET_KEY to load, never used at run time.
RUN DEBUG=true SECRET_KEY=build-only python manage.py collectstatic --noinput -v 0 \
    && useradd --system --home /app paymentsvc \
    && mkdir -p "$VAR_DIR" && chown paymentsvc "$VAR_DIR"
USER paymentsvc
EXPOSE 8000
CMD ["gunicorn", "-c", "gunicorn.conf.py", "paymentsvc.wsgi"]
