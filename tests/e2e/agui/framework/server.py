"""A real framework's own AG-UI integration, for the end-to-end tests: a Pydantic AI agent served
by Pydantic AI's AG-UI adapter (`pydantic_ai.ui.ag_ui.AGUIAdapter`), whose model is a scripted
`FunctionModel` so that no API key or network is needed.

    target/agui-venv/bin/python tests/e2e/agui/framework/server.py --port 0

prints `listening on http://127.0.0.1:PORT` once it accepts connections. Routes:
  POST /agent      the agent (AG-UI: RunAgentInput in, server-sent events out)
  GET  /requests   every RunAgentInput received so far, in order; DELETE /requests empties it
  GET  /healthz    200

The scripted model looks at the last user message (lower-cased; first keyword wins):
  "tool"     calls the backend tool search_docs(query="release notes"), then answers
             "Found 3 results for release notes."
  "weather"  calls get_weather(city="Paris"), a tool the page declares in RunAgentInput.tools: the
             adapter turns the page's tools into deferred ("external") tools, so the run ends after
             the call and the page posts the result as a `tool` message in the next run, whose
             answer is "The weather tool said: <content>" ("The weather tool failed: <content>" when
             the tool message has an `error`). Without a declared get_weather the model answers
             "I cannot check the weather: no get_weather tool was declared." (a model does not call
             a tool it was not given, so this is text, not RUN_ERROR as on the SDK server).
  "approve"  calls delete_files(count=3), a backend tool that requires approval: the adapter ends
             the run with an interrupt outcome (id "int-<toolCallId>", reason "tool_call", toolCallId,
             message "Approve delete_files({...})?", responseSchema {approved, editedArgs?, reason?}).
             The page resumes with the conversation it holds (the assistant message with the call
             included) and resume [{interruptId, status, payload}]: payload {approved: true} runs
             the tool -> "Approved: deleting 3 files."; {approved: false} or status "cancelled" ->
             "Rejected: nothing was deleted."
  otherwise  "You said: “<text>”. I have <N> messages." where N counts the Pydantic AI messages the
             model sees (one per AG-UI user or assistant message in a plain conversation).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys

import uvicorn
from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route


def last_user_text(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart):
                    if isinstance(part.content, str):
                        return part.content
                    return ''.join(item for item in part.content if isinstance(item, str))
    return ''


def find_call(messages: list[ModelMessage], tool_call_id: str) -> ToolCallPart | None:
    for message in messages:
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart) and part.tool_call_id == tool_call_id:
                    return part
    return None


async def words(text: str):
    """Text in several deltas, a little apart, as a model streams it."""
    pieces = text.split(' ')
    for i, piece in enumerate(pieces):
        await asyncio.sleep(0.015)
        yield piece if i == len(pieces) - 1 else piece + ' '


async def tool_call(name: str, args: dict, call_id: str):
    """A tool call whose JSON arguments arrive in two deltas."""
    text = json.dumps(args)
    half = len(text) // 2
    yield {0: DeltaToolCall(name=name, json_args=text[:half], tool_call_id=call_id)}
    await asyncio.sleep(0.015)
    yield {0: DeltaToolCall(json_args=text[half:])}


def answer_after_tool(messages: list[ModelMessage], result: ToolReturnPart) -> str:
    if result.tool_name == 'search_docs':
        call = find_call(messages, result.tool_call_id)
        query = call.args_as_dict().get('query', '') if call else ''
        return f'Found {result.content} for {query}.'
    if result.tool_name == 'get_weather':
        # A failed tool message arrives with outcome 'failed' and its `content` (its `error` is dropped).
        verb = 'failed' if result.outcome == 'failed' else 'said'
        content = result.content if isinstance(result.content, str) else result.model_response_str()
        return f'The weather tool {verb}: {content}'
    if result.tool_name == 'delete_files':
        if result.outcome == 'success':
            return f'Approved: {result.content}.'
        return 'Rejected: nothing was deleted.'
    return f'The {result.tool_name} tool returned: {result.model_response_str()}'


async def scripted_model(messages: list[ModelMessage], info: AgentInfo):
    """The model: a stream of text deltas or of one tool call (FunctionModel cannot mix the two)."""
    last = messages[-1]
    results = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    if results:
        async for delta in words(answer_after_tool(messages, results[-1])):
            yield delta
        return

    text = last_user_text(messages)
    lowered = text.lower()
    tools = {tool.name for tool in info.function_tools}
    call_id = f'call-{len(messages)}'
    if 'tool' in lowered:
        async for delta in tool_call('search_docs', {'query': 'release notes'}, call_id):
            yield delta
    elif 'weather' in lowered and 'get_weather' in tools:
        async for delta in tool_call('get_weather', {'city': 'Paris'}, call_id):
            yield delta
    elif 'weather' in lowered:
        async for delta in words('I cannot check the weather: no get_weather tool was declared.'):
            yield delta
    elif 'approve' in lowered:
        async for delta in tool_call('delete_files', {'count': 3}, call_id):
            yield delta
    else:
        async for delta in words(f'You said: “{text}”. I have {len(messages)} messages.'):
            yield delta


# DeferredToolRequests among the outputs lets a run end on a call that waits for approval (which
# the adapter sends as an interrupt).
agent = Agent(
    FunctionModel(stream_function=scripted_model, model_name='scripted'),
    output_type=[str, DeferredToolRequests],
)


@agent.tool_plain
def search_docs(query: str) -> str:
    """Search the documentation."""
    return '3 results'


@agent.tool_plain(requires_approval=True)
def delete_files(count: int) -> str:
    """Delete files from the workspace."""
    return f'deleting {count} files'


received: list = []


async def run_agent(request: Request) -> Response:
    body = await request.body()  # Starlette caches it, so the adapter reads it again
    try:
        received.append(json.loads(body))
    except ValueError:
        received.append(None)
    return await AGUIAdapter.dispatch_request(request, agent=agent)


async def requests(request: Request) -> Response:
    if request.method == 'DELETE':
        received.clear()
        return Response(status_code=204)
    return JSONResponse(received)


async def healthz(request: Request) -> Response:
    return PlainTextResponse('ok')


app = Starlette(
    routes=[
        Route('/agent', run_agent, methods=['POST']),
        Route('/requests', requests, methods=['GET', 'DELETE']),
        Route('/healthz', healthz, methods=['GET']),
    ],
    # The page under test may be served from another origin.
    middleware=[
        Middleware(CORSMiddleware, allow_origins=['*'], allow_methods=['*'], allow_headers=['*'], max_age=600)
    ],
)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, default=0)
    port = parser.parse_args().port
    # Bind here, so that with --port 0 the real port is known and printed.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', port))
    server = uvicorn.Server(uvicorn.Config(app, log_level='warning', timeout_graceful_shutdown=1))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if serving.done():
            await serving  # raises what stopped it
            sys.exit(1)
        await asyncio.sleep(0.02)
    print(f'listening on http://127.0.0.1:{sock.getsockname()[1]}', flush=True)
    await serving


if __name__ == '__main__':
    asyncio.run(main())
